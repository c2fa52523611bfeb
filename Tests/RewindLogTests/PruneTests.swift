import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Prune: the only way data leaves", .ownThreads)
struct PruneTests {
    @Test("prune(sessions:) removes only the named sessions; the others stay whole and searchable")
    func pruneNamed() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        var ids: [Int64] = []
        for n in 0..<3 {
            let id = try writer.openSession(uuid: "session-\(n)", app: "Counter", startedAt: Fixture.start)
            ids.append(id)
            var events = Fixture.events(session: id, seqs: 0..<30)
            events[12] = Fixture.event(session: id, seq: 12, keyframe: true, text: "marker\(n)")
            writer.append(events)
        }
        try writer.flush()
        #expect(try writer.prune(sessions: [ids[1], 999]) == [ids[1]])

        let reader = try LogReader(path: writer.path)
        #expect(try reader.sessions().map(\.id) == [ids[0], ids[2]])
        #expect(try reader.eventCount() == 60)
        #expect(try reader.stats().keyframes == 4)
        #expect(try reader.events(session: ids[0], text: "marker0").map(\.seq) == [12])
        #expect(try reader.events(session: ids[1], text: "marker1").isEmpty)
        for id in [ids[0], ids[2]] {
            #expect(try reader.events(session: id) == Fixture.events(session: id, seqs: 0..<30).enumerated().map { index, event in
                var event = index == 12 ? Fixture.event(session: id, seq: 12, text: "marker\(id - 1)") : event
                event.keyframe = nil
                return event
            })
            #expect(try reader.keyframeSeqs(session: id) == [0, 12])
        }
        // The full-text index still agrees with the events table.
        let raw = try Connection(path: writer.path)
        try raw.execute("INSERT INTO events_fts(events_fts, rank) VALUES ('integrity-check', 1)")
        // The marker table is empty again and the triggers still guard the survivors.
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_prune") == 0)
        #expect(throws: LogError.self) { try raw.execute("DELETE FROM events WHERE session_id = \(ids[0])") }
        // The pruned session can no longer be appended to; the others continue.
        #expect(throws: LogError.self) { try writer.nextSeq(session: ids[1]) }
        #expect(try writer.nextSeq(session: ids[2]) == 30)
    }

    @Test("prune(olderThanDays:) goes by the last activity of each session")
    func pruneByAge() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let now = Fixture.start.addingTimeInterval(30 * 86_400)
        let old = try writer.openSession(uuid: "old", app: "A", startedAt: Fixture.start)
        let oldButActive = try writer.openSession(uuid: "active", app: "A", startedAt: Fixture.start)
        let recent = try writer.openSession(uuid: "recent", app: "A", startedAt: now.addingTimeInterval(-86_400))
        writer.append(Fixture.events(session: old, seqs: 0..<3))
        var late = Fixture.events(session: oldButActive, seqs: 0..<3)
        late[2].at = now.addingTimeInterval(-3_600)
        writer.append(late)
        try writer.flush()
        #expect(try writer.prune(olderThanDays: 7, now: now) == [old])
        #expect(try LogReader(path: writer.path).sessions().map(\.id) == [oldButActive, recent])
    }
}
