import RewindServer
import RewindSupport
import Testing

/// The fair inbox on its own, with no server around it: the turns app ingest and inspector
/// queries rely on, and ingest's flow-control marks. The hostile-ingest and hostile-query
/// repros test the same through real sockets.
@Suite("Fair inbox")
struct FairInboxTests {
    typealias Inbox = FairInbox<String, Int>

    /// Takes turns until the inbox has nothing in line; returns them in the order served.
    static func drain(_ inbox: inout Inbox) -> [Inbox.Turn] {
        var served: [Inbox.Turn] = []
        while let turn = inbox.next() { served.append(turn) }
        return served
    }

    @Test("a key with a thousand items waiting delays another key's item by one turn, not a thousand")
    func oneBusyKeyCannotStarveAnother() {
        var inbox = Inbox(rotation: .rejoinAtOnce)
        for item in 0..<1_000 { inbox.append(item, to: "flood") }
        inbox.append(0, to: "quiet")
        inbox.append(0, to: "late")
        let served = Self.drain(&inbox)
        #expect(served.count == 1_002)
        #expect(served.firstIndex { $0.key == "quiet" } == 1)
        #expect(served.firstIndex { $0.key == "late" } == 2)
        #expect(inbox.isEmpty)
    }

    @Test("keys take turns round-robin in the order they joined the line")
    func turnsGoRoundRobin() {
        var inbox = Inbox(rotation: .rejoinAtOnce)
        for key in ["a", "b", "c"] {
            for item in 0..<3 { inbox.append(item, to: key) }
        }
        inbox.append(0, to: "d")
        let keys = Self.drain(&inbox).map(\.key)
        #expect(keys == ["a", "b", "c", "d", "a", "b", "c", "a", "b", "c"])
    }

    @Test("each key's items come out in the order they went in, whatever the other keys do")
    func itemsOfAKeyStayInOrder() {
        var inbox = Inbox(rotation: .rejoinAtOnce)
        var generator = SplitMix64(seed: 29)
        var sent: [String: [Int]] = [:]
        for item in 0..<2_000 {
            let key = ["a", "b", "c", "d"][Int(generator.next() % 4)]
            inbox.append(item, to: key)
            sent[key, default: []].append(item)
            // Take a turn now and then, so items go in while others come out.
            if generator.next() % 3 == 0 { _ = inbox.next().map { sent["taken-" + $0.key, default: []].append($0.item) } }
        }
        for turn in Self.drain(&inbox) { sent["taken-" + turn.key, default: []].append(turn.item) }
        for key in ["a", "b", "c", "d"] {
            let inOrder = sent[key] ?? []
            let outOrder = sent["taken-" + key] ?? []
            #expect(outOrder.count == inOrder.count, "key \(key)")
            #expect(outOrder.indices.first { outOrder[$0] != inOrder[$0] } == nil, "key \(key): first difference")
        }
    }

    @Test("a round takes one item of every key in line; the keys with more stay in line, ahead of newcomers")
    func aRoundTakesOneOfEach() {
        var inbox = Inbox(rotation: .rejoinAtOnce)
        inbox.append(1, to: "a")
        inbox.append(2, to: "a")
        inbox.append(1, to: "b")
        inbox.append(1, to: "c")
        inbox.append(2, to: "c")
        let first = inbox.nextRound()
        #expect(first.map(\.key) == ["a", "b", "c"])
        #expect(first.map(\.item) == [1, 1, 1])
        inbox.append(1, to: "d")
        inbox.append(2, to: "b")
        let second = inbox.nextRound()
        #expect(second.map(\.key) == ["a", "c", "d", "b"])
        #expect(second.map(\.item) == [2, 2, 1, 2])
        #expect(inbox.nextRound().isEmpty)
        #expect(inbox.isEmpty)
    }

    @Test("rejoining when finished: a key's items are handled one at a time, others' go meanwhile")
    func aTakenKeyWaitsForItsFinish() {
        var inbox = Inbox(rotation: .rejoinWhenFinished)
        #expect(inbox.append(1, to: "a").joinedLine)
        #expect(!inbox.append(2, to: "a").joinedLine)
        #expect(inbox.append(1, to: "b").joinedLine)
        #expect(inbox.next()?.key == "a")
        // "a" is out of line until finished; a third item does not put it back.
        #expect(!inbox.append(3, to: "a").joinedLine)
        #expect(inbox.next()?.key == "b")
        #expect(inbox.next() == nil)
        let finished1 = inbox.finish("a")
        #expect(finished1)
        let finished2 = inbox.finish("b")
        #expect(!finished2)
        let turn = inbox.next()
        #expect(turn?.key == "a")
        #expect(turn?.item == 2)
        #expect(inbox.next() == nil)
        let finished3 = inbox.finish("a")
        #expect(finished3)
        #expect(inbox.next()?.item == 3)
        let finished4 = inbox.finish("a")
        #expect(!finished4)
        #expect(inbox.isEmpty)
        // Empty again: its next item joins the line.
        #expect(inbox.append(4, to: "a").joinedLine)
    }

    @Test("the limit counts items waiting and the one being handled, and refuses the rest")
    func theLimitRefuses() {
        var inbox = Inbox(rotation: .rejoinWhenFinished, limit: 2)
        #expect(inbox.append(1, to: "a") == .accepted(joinedLine: true, paused: false))
        #expect(inbox.append(2, to: "a") == .accepted(joinedLine: false, paused: false))
        #expect(inbox.append(3, to: "a") == .refused)
        #expect(inbox.append(1, to: "b") != .refused)
        _ = inbox.next()
        #expect(inbox.load(of: "a") == 2)
        #expect(inbox.append(3, to: "a") == .refused)
        inbox.finish("a")
        #expect(inbox.load(of: "a") == 1)
        #expect(inbox.append(3, to: "a") == .accepted(joinedLine: false, paused: false))
        #expect(inbox.waiting(for: "a") == 2)
    }

    @Test("the pause mark is set once, when a key's items or bytes reach it; a close never sets it")
    func thePauseMark() {
        let marks = Inbox.Marks(pauseItems: 4, pauseBytes: 100)
        #expect(marks.resumeItems == 2)
        #expect(marks.resumeBytes == 50)
        var inbox = Inbox(rotation: .rejoinAtOnce, marks: marks)
        for item in 0..<3 { #expect(!inbox.append(item, to: "a", bytes: 1).paused) }
        // The fourth would reach the mark, but a close never pauses.
        #expect(!inbox.append(3, to: "a", bytes: 0, mayPause: false).paused)
        #expect(!inbox.isPaused("a"))
        #expect(inbox.append(4, to: "a", bytes: 1).paused)
        #expect(inbox.isPaused("a"))
        // Already paused: not again.
        #expect(!inbox.append(5, to: "a", bytes: 1).paused)
        // Bytes alone reach it too.
        #expect(inbox.append(0, to: "b", bytes: 100).paused)
        #expect(!inbox.append(0, to: "c", bytes: 99).paused)
        #expect(inbox.bytes(for: "c") == 99)
    }

    @Test("the resume mark is cleared once, by the turn that leaves both items and bytes at or below it")
    func theResumeMark() {
        var inbox = Inbox(rotation: .rejoinAtOnce, marks: Inbox.Marks(pauseItems: 4, pauseBytes: 100))
        // Paused by count: resumed once two items (the resume mark) are left.
        for item in 0..<4 { inbox.append(item, to: "a", bytes: 1) }
        #expect(inbox.isPaused("a"))
        let resumed = Self.drain(&inbox).map(\.resumed)
        #expect(resumed == [false, true, false, false])
        #expect(!inbox.isPaused("a"))

        // Paused by bytes: few items, but not resumed while more than 50 bytes wait.
        inbox.append(0, to: "b", bytes: 60)
        inbox.append(1, to: "b", bytes: 60)
        inbox.append(2, to: "b", bytes: 10)
        #expect(inbox.isPaused("b"))
        let byBytes = Self.drain(&inbox).map(\.resumed)
        #expect(byBytes == [false, true, false])
    }

    @Test("removing a key drops what waits and its place in line; one being handled finishes to nothing")
    func removingAKey() {
        var inbox = Inbox(rotation: .rejoinWhenFinished)
        for item in 0..<3 { inbox.append(item, to: "gone") }
        inbox.append(0, to: "stays")
        inbox.remove("gone")
        #expect(inbox.waiting(for: "gone") == 0)
        #expect(inbox.lineCount == 1)
        #expect(Self.drain(&inbox).map(\.key) == ["stays"])

        inbox.append(0, to: "busy")
        inbox.append(1, to: "busy")
        #expect(inbox.next()?.key == "busy")
        inbox.remove("busy")
        let finished5 = inbox.finish("busy")
        #expect(!finished5)
        #expect(inbox.next() == nil)
        #expect(inbox.load(of: "busy") == 0)
        inbox.finish("stays")
        #expect(inbox.isEmpty)
    }

    @Test("an empty inbox has nothing to take, and unknown keys are no trouble")
    func emptyBehaviour() {
        var inbox = Inbox(rotation: .rejoinAtOnce, marks: Inbox.Marks(pauseItems: 2, pauseBytes: 10), limit: 5)
        #expect(inbox.isEmpty)
        #expect(inbox.next() == nil)
        #expect(inbox.nextRound().isEmpty)
        let finished6 = inbox.finish("nobody")
        #expect(!finished6)
        inbox.remove("nobody")
        #expect(inbox.waiting(for: "nobody") == 0)
        #expect(inbox.bytes(for: "nobody") == 0)
        #expect(!inbox.isPaused("nobody"))
        #expect(inbox.lineCount == 0)
        // Drained, it is empty again, pause marks included.
        inbox.append(1, to: "a", bytes: 20)
        #expect(inbox.isPaused("a"))
        #expect(inbox.next()?.resumed == true)
        #expect(inbox.isEmpty)
        #expect(!inbox.isPaused("a"))
    }
}
