@testable import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Outgoing queue", .ownThreads)
struct OutgoingQueueTests {
    @Test("keeps order and refuses past the message limit")
    func messageLimit() {
        var queue = OutgoingQueue(limits: WebSocketQueueLimits(maxMessages: 3, maxBytes: 1_000))
        let accepted = [queue.push(.text([1])), queue.push(.text([2])), queue.push(.binary([3])), queue.push(.text([4]))]
        #expect(accepted == [true, true, true, false])
        let first = queue.pop()
        #expect(first == .text([1]))
        let acceptedAfterPop = queue.push(.text([5]))
        #expect(acceptedAfterPop)
        let rest = [queue.pop(), queue.pop(), queue.pop(), queue.pop()]
        #expect(rest == [.text([2]), .binary([3]), .text([5]), nil])
        #expect(queue.isEmpty && queue.byteCount == 0)
    }

    @Test("refuses past the byte limit and frees bytes as it pops")
    func byteLimit() {
        var queue = OutgoingQueue(limits: WebSocketQueueLimits(maxMessages: 100, maxBytes: 10))
        let accepted = [
            queue.push(.binary([UInt8](repeating: 0, count: 6))),
            queue.push(.binary([UInt8](repeating: 0, count: 5))),
            queue.push(.binary([UInt8](repeating: 0, count: 4))),
        ]
        #expect(accepted == [true, false, true])
        #expect(queue.byteCount == 10)
        _ = queue.pop()
        #expect(queue.byteCount == 4)
        let oversized = queue.push(.binary([UInt8](repeating: 0, count: 11)))
        #expect(!oversized)
    }

    @Test("stays correct across many pushes and pops (compaction)")
    func compaction() {
        var queue = OutgoingQueue(limits: WebSocketQueueLimits(maxMessages: 10_000, maxBytes: 1 << 30))
        var next = 0
        var allAccepted = true
        var allInOrder = true
        for round in 0..<50 {
            for index in 0..<300 { allAccepted = queue.push(.text(Array("\(round)-\(index)".utf8))) && allAccepted }
            for _ in 0..<250 {
                let popped = queue.pop()
                allInOrder = allInOrder && popped == .text(Array("\(next / 300)-\(next % 300)".utf8))
                next += 1
            }
        }
        #expect(allAccepted && allInOrder)
        #expect(queue.count == 50 * 50)
    }
}
