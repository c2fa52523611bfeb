import Dispatch
import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Concurrent senders", .ownThreads)
struct ConcurrentSendTests {
    @Test("many threads sending to one connection lose nothing and keep each sender's order")
    func concurrentSenders() throws {
        let serverDelegate = TestServerDelegate(echo: false)
        let senders = 8
        let perSender = 1_000
        // Room for every message, so the test is about loss and order, not about the limit.
        let (server, port) = try startServer(serverDelegate) {
            $0.queueLimits = WebSocketQueueLimits(maxMessages: senders * perSender, maxBytes: 1 << 30)
        }
        defer { server.shutdown() }
        let (client, delegate) = try connectClient(port: port)
        defer { client.close() }
        let connection = try #require(serverDelegate.waitForConnection())

        let refused = Recorder(0)
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for index in 0..<perSender {
                if connection.send(text: "\(sender):\(index)") != .enqueued { refused.update { $0 += 1 } }
            }
        }
        #expect(refused.value == 0)
        #expect(delegate.state.wait(timeout: .seconds(30)) { $0.received.count >= senders * perSender })

        var next = [Int](repeating: 0, count: senders)
        var outOfOrder = 0
        for message in delegate.state.value.received {
            let parts = try #require(message.string?.split(separator: ":").compactMap { Int($0) })
            if parts[1] != next[parts[0]] { outOfOrder += 1 }
            next[parts[0]] = parts[1] + 1
        }
        #expect(outOfOrder == 0)
        #expect(next == [Int](repeating: perSender, count: senders))
    }
}
