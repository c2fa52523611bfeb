import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindReplay
import RewindTestSupport

@Suite("Timeline: diff and blame", .ownThreads)
struct TimelineDiffBlameTests {
    @Test("diff(from:to:) is the diff of the two recorded states, either way round")
    func diff() throws {
        let session = try RecordedSession.make(count: 600, seed: 21)
        let timeline = try Timeline(path: session.path, session: "latest")
        for (a, b) in [(0, 600), (250, 251), (251, 250), (400, 400), (17, 530)] as [(Int64, Int64)] {
            let diff = try timeline.diff(from: a, to: b)
            let expected = JSONDiff(from: session.states[Int(a)], to: session.states[Int(b)])
            #expect(diff.changes == expected.changes, "\(a) → \(b)")
            #expect(try diff.forward.apply(to: session.states[Int(a)]) == session.states[Int(b)])
            #expect(try diff.inverse.apply(to: session.states[Int(b)]) == session.states[Int(a)])
        }
        #expect(try timeline.diff(from: 400, to: 400).isEmpty)
        #expect(throws: ReplayError.seqOutOfRange(session: 1, seq: 601, lastSeq: 600)) { try timeline.diff(from: 0, to: 601) }
    }

    /// What blame must answer, computed from the built events and states without the timeline.
    func expectedBlame(_ session: RecordedSession, path: JSONPointer) throws -> [BlameEntry] {
        var entries: [BlameEntry] = []
        // Times come back from the log's REAL column, seconds since 1970.
        func stored(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970) }
        if let initial = path.resolve(in: session.states[0]) {
            let event = session.events[0]
            entries.append(BlameEntry(seq: 0, at: stored(event.at), actionType: event.actionType, action: event.action,
                                      before: nil, after: initial, operations: []))
        }
        for event in session.events.dropFirst() {
            let touching = try JSONPatch(json: event.patch).operations.filter {
                $0.path.overlaps(path) || ($0.from?.overlaps(path) ?? false)
            }
            guard !touching.isEmpty else { continue }
            let seq = Int(event.seq)
            entries.append(BlameEntry(seq: event.seq, at: stored(event.at), actionType: event.actionType, action: event.action,
                                      before: path.resolve(in: session.states[seq - 1]), after: path.resolve(in: session.states[seq]),
                                      operations: touching))
        }
        return entries
    }

    @Test("blame lists exactly the events whose patch touched the path, an ancestor or a descendant, with the values around them",
          arguments: ["/user/name", "/user", "/user/prefs/theme", "/todos/2", "/todos/0/done", "/flags/f3", "/count", "", "/nothing/here"])
    func blameMatchesPatches(pointer: String) throws {
        let session = try RecordedSession.make(count: 1_200, seed: 31, policy: KeyframePolicy(maxEvents: 150), coalesceEvery: 17)
        let timeline = try Timeline(path: session.path, session: "latest")
        let path = try JSONPointer(pointer)
        let entries = try timeline.blame(path: path)
        let expected = try expectedBlame(session, path: path)
        #expect(entries.map(\.seq) == expected.map(\.seq))
        #expect(entries == expected)
        if pointer == "/user/name" {
            #expect(entries.count > 50, "renames and whole-user replacements both touch /user/name")
            #expect(entries.contains { $0.actionType == "user/replace" })
        }
        if pointer == "" { #expect(entries.count == session.events.filter { $0.patch != [] }.count + 1) }
        if pointer == "/nothing/here" { #expect(entries.isEmpty) }
    }

    @Test("blame on a hand-made session: ancestors, descendants, moves, removals and values that appear")
    func blameByHand() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let id = try writer.openSession(uuid: "hand", app: "Hand", startedAt: RecordedSession.start)
        var builder = EventBuilder(sessionID: id)
        let t = RecordedSession.start
        var events = [builder.initial(state: ["a": ["b": 1, "c": 2], "x": 0], at: t)]
        func record(_ type: String, _ patch: JSONValue) throws {
            let next = try JSONPatch(json: patch).apply(to: builder.state)
            events.append(builder.next(action: ["type": .string(type)], state: next, at: t))
        }
        try record("x", [["op": "replace", "path": "/x", "value": 1]])                 // 1: elsewhere
        try record("b", [["op": "replace", "path": "/a/b", "value": 10]])              // 2: the path
        try record("c", [["op": "replace", "path": "/a/c", "value": 20]])              // 3: a sibling
        try record("a", [["op": "replace", "path": "/a", "value": ["b": 100]]])        // 4: the parent, whole
        try record("deep", [["op": "add", "path": "/a/b", "value": ["d": 1]]])         // 5: becomes an object
        try record("deeper", [["op": "replace", "path": "/a/b/d", "value": 2]])        // 6: a descendant
        try record("gone", [["op": "remove", "path": "/a/b"]])                         // 7: removed
        try record("noop", [["op": "replace", "path": "/x", "value": 2]])              // 8: elsewhere
        try record("back", [["op": "add", "path": "/a/b", "value": 5]])                // 9: appears again
        writer.append(events)
        try writer.flush()
        let timeline = try Timeline(path: directory.path("log.db"), session: "hand")
        let entries = try timeline.blame(path: JSONPointer("/a/b"))
        #expect(entries.map(\.seq) == [0, 2, 4, 5, 6, 7, 9])
        let absent: JSONValue? = Optional.none
        #expect(entries.map(\.before) == [absent, 1, 10, 100, ["d": 1], ["d": 2], absent])
        #expect(entries.map(\.after) == [1, 10, 100, ["d": 1], ["d": 2], absent, 5])
        #expect(entries.map(\.actionType) == ["@@INIT", "b", "a", "deep", "deeper", "gone", "back"])
    }

    @Test("blame names the event whose patch does not apply")
    func blameOnBrokenChain() throws {
        let session = try RecordedSession.make(count: 50, seed: 41)
        try Corruption.execute(session, "UPDATE events SET patch = '[{\"op\":\"remove\",\"path\":\"/missing\"}]' WHERE seq = 20")
        let timeline = try Timeline(path: session.path, session: "latest")
        let error = #expect(throws: ReplayError.self) { try timeline.blame(path: JSONPointer("/count")) }
        guard case .brokenChain(_, let seq, let reason)? = error else { Issue.record("expected a broken chain"); return }
        #expect(seq == 20)
        #expect(reason.hasPrefix("its patch does not apply: "))
    }
}
