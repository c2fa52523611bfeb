import Foundation
import RewindJSON
import Testing
@testable import RewindLog

/// Schema 4 keeps which state hash each session's events carry.
@Suite("Log file: each session's state hash version")
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
}
