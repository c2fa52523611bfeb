import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("LogWriter.write: an import is stored whole or not at all", .ownThreads)
struct ImportWriteTests {
    static let lines = [#"{"state":{"n":0},"at":1700000000}"#, #"{"action":"inc","state":{"n":1},"at":1700000001}"#,
                        #"{"action":"inc","state":{"n":2},"at":1700000002}"#]

    @Test("the session gets the import's meta, the times of its first and last events, and every event")
    func stored() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let session = try JSONLImport.parse(ImportSupport.jsonl(Self.lines), options: ImportOptions(file: "t.jsonl"))
        let id = try writer.write(session, uuid: "imported", app: "Counter")
        let reader = try LogReader(path: writer.path)
        let info = try reader.session(id: id)
        #expect(info.uuid == "imported")
        #expect(info.app == "Counter")
        #expect(info.startedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(info.endedAt == Date(timeIntervalSince1970: 1_700_000_002))
        #expect(info.eventCount == 3)
        #expect(ImportMeta(sessionMeta: info.meta) == session.importMeta)
        var expected = session.events
        for index in expected.indices {
            expected[index].sessionID = id
        }
        #expect(try reader.events(session: id, includeKeyframes: true) == expected)
    }

    @Test("a batch the writer refuses leaves the log as it was: the session row goes too")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let (writer, existing) = try makeWriter(directory)
        defer { writer.close() }
        writer.append(Fixture.events(session: existing, seqs: 0..<5))
        try writer.flush()

        var session = try JSONLImport.parse(ImportSupport.jsonl(Self.lines))
        session.events[2].patch = ["not": "an array"]
        #expect(throws: LogError.self) { try writer.write(session, uuid: "refused", app: "Counter") }
        let reader = try LogReader(path: writer.path)
        #expect(try reader.sessions().map(\.id) == [existing])
        #expect(try reader.eventCount() == 5)
        #expect(try reader.stats().keyframes == 1)
    }

    @Test("an import never adds to a session that exists")
    func takenUUID() throws {
        let directory = try TemporaryDirectory()
        let (writer, existing) = try makeWriter(directory, uuid: "taken")
        defer { writer.close() }
        writer.append(Fixture.events(session: existing, seqs: 0..<3))
        try writer.flush()
        let session = try JSONLImport.parse(ImportSupport.jsonl(Self.lines))
        #expect(throws: LogError.self) { try writer.write(session, uuid: "taken", app: "Counter") }
        let reader = try LogReader(path: writer.path)
        #expect(try reader.sessions().map(\.id) == [existing])
        #expect(try reader.events(session: existing) == Fixture.events(session: existing, seqs: 0..<3).map { event in
            var event = event
            event.keyframe = nil
            return event
        })
    }
}
