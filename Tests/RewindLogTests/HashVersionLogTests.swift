import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

/// Schema 4 keeps which state hash each session's events carry.
@Suite("Log file: each session's state hash version", .ownThreads)
struct HashVersionLogTests {
    @Test("a session keeps the version it was opened with; continuing it with another is refused in one sentence")
    func keptAndChecked() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let old = try writer.openSession(uuid: "old", app: "A", startedAt: Fixture.start)
        let new = try writer.openSession(uuid: "new", app: "A", startedAt: Fixture.start, hashVersion: .v2)
        let reader = try LogReader(path: writer.path)
        #expect(try reader.session(id: old).hashVersion == .v1)
        #expect(try reader.session(id: new).hashVersion == .v2)
        // Reopening with the same version continues the session (an app reconnecting).
        #expect(try writer.openSession(uuid: "new", app: "A", startedAt: Fixture.start, hashVersion: .v2) == new)
        let error = #expect(throws: LogError.self) {
            try writer.openSession(uuid: "new", app: "A", startedAt: Fixture.start, hashVersion: .v1)
        }
        #expect(error?.description == "Session new in \(writer.path) records state hash version 2; it cannot continue with version 1.")
        #expect(try reader.session(id: new).hashVersion == .v2)
        // The column is part of the session's fixed identity, and holds only known versions.
        let raw = try Connection(path: writer.path)
        #expect(throws: LogError.self) { try raw.execute("UPDATE sessions SET hash_version = 1 WHERE id = \(new)") }
        #expect(throws: LogError.self) {
            try raw.execute("INSERT INTO sessions(uuid, app, started_at, hash_version) VALUES ('x', 'A', 0, 3)")
        }
        #expect(try reader.session(id: new).hashVersion == .v2)
    }

    @Test("sessions of a file from before schema 4 read as version 1 once migrated")
    func migrated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v2.db")
        try SendSiteSchemaTests.makeVersion2(at: path)
        try LogWriter(path: path).close()
        let sessions = try LogReader(path: path).sessions()
        #expect(!sessions.isEmpty)
        #expect(sessions.allSatisfy { $0.hashVersion == .v1 })
    }

    /// States 0…count-1 of a counter whose value at `changedFrom` and after is shifted by 100.
    private func record(_ writer: LogWriter, uuid: String, version: StateHashVersion, count: Int, changedFrom: Int? = nil,
                        coalesceAt: Int? = nil) throws -> Int64 {
        let id = try writer.openSession(uuid: uuid, app: "A", startedAt: Fixture.start, hashVersion: version)
        var builder = EventBuilder(sessionID: id, hashVersion: version)
        var events = [builder.initial(state: ["n": 0, "label": "a long label that takes the four lanes of the hash"], at: Fixture.start)]
        for seq in 1..<count {
            if seq == coalesceAt {
                events.append(builder.skipped(action: ["type": "tick"], at: Fixture.start))
                continue
            }
            let value = seq + (changedFrom.map { seq >= $0 ? 100 : 0 } ?? 0)
            events.append(builder.next(action: ["type": "tick"], state: ["n": .number(JSONNumber(value)),
                                                                          "label": "a long label that takes the four lanes of the hash"],
                                       at: Fixture.start))
        }
        writer.append(events)
        return id
    }

    @Test("the first difference between sessions of different hash versions is found by rebuilding and rehashing")
    func firstDifferenceAcrossVersions() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let original = try record(writer, uuid: "v1", version: .v1, count: 50, coalesceAt: 20)
        let same = try record(writer, uuid: "v2-same", version: .v2, count: 50, coalesceAt: 20)
        let changed = try record(writer, uuid: "v2-changed", version: .v2, count: 50, changedFrom: 31, coalesceAt: 20)
        let shorter = try record(writer, uuid: "v2-shorter", version: .v2, count: 40, coalesceAt: 20)
        let sameV1 = try record(writer, uuid: "v1-changed", version: .v1, count: 50, changedFrom: 31, coalesceAt: 20)
        try writer.flush()
        let reader = try LogReader(path: writer.path)
        #expect(try reader.firstDifference(between: original, and: same) == nil)
        #expect(try reader.firstDifference(between: same, and: original) == nil)
        #expect(try reader.firstDifference(between: original, and: changed) == 31)
        #expect(try reader.firstDifference(between: changed, and: original) == 31)
        #expect(try reader.firstDifference(between: original, and: shorter) == 40)
        #expect(try reader.firstDifference(between: shorter, and: original) == 40)
        // The same answers as two sessions of one version give from their stored hashes.
        #expect(try reader.firstDifference(between: original, and: sameV1) == 31)
    }
}
