import Foundation
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Append-only, enforced by the database", .ownThreads)
struct AppendOnlyTests {
    /// A log with one session of 5 events (a keyframe at 0) and a raw connection to it.
    func fixture() throws -> (TemporaryDirectory, Connection) {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        writer.append(Fixture.events(session: id, seqs: 0..<5))
        try writer.flush()
        writer.close()
        return (directory, try Connection(path: directory.path("log.db")))
    }

    func snapshot(_ connection: Connection) throws -> String {
        let statement = try connection.prepare("""
            SELECT group_concat(session_id || ':' || seq || ':' || action || ':' || hash, '|') FROM (SELECT * FROM events ORDER BY session_id, seq)
            """)
        try statement.step()
        return statement.string(0) + "#" + String(try connection.scalarInt("SELECT count(*) FROM keyframes") ?? -1)
    }

    @Test("UPDATE and DELETE through raw SQL are rejected", arguments: [
        "UPDATE events SET action = '{}' WHERE seq = 2",
        "UPDATE events SET hash = 0",
        "DELETE FROM events WHERE seq = 4",
        "DELETE FROM events",
        "UPDATE keyframes SET state = '{}'",
        "DELETE FROM keyframes",
        "DELETE FROM sessions",
        "UPDATE sessions SET uuid = 'x'",
        "UPDATE sessions SET started_at = 0",
    ])
    func updateDeleteRejected(sql: String) throws {
        let (directory, connection) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let before = try snapshot(connection)
        let error = #expect(throws: LogError.self) { try connection.execute(sql) }
        #expect(error?.kind == .sqlite)
        #expect(error?.code == 1_811, "SQLITE_CONSTRAINT_TRIGGER")
        #expect(error?.sql == sql)
        #expect(error?.message.hasPrefix("rewind: ") == true)
        #expect(error?.description.contains("running `\(sql)`") == true)
        #expect(try snapshot(connection) == before)
    }

    @Test("ended_at may be set: it is how a session ends")
    func endedAtAllowed() throws {
        let (directory, connection) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        try connection.execute("UPDATE sessions SET ended_at = 1700000100")
        #expect(try connection.scalarInt("SELECT ended_at FROM sessions") == 1_700_000_100)
    }

    @Test("Raw inserts must extend their session without gap or duplicate", arguments: [
        (Int64(1), Int64(7), false), // gap
        (1, 3, false),               // duplicate
        (1, 0, false),               // duplicate of the first
        (9, 0, false),               // unknown session
        (1, 5, true),                // the next seq
    ])
    func rawInsertSeqs(session: Int64, seq: Int64, accepted: Bool) throws {
        let (directory, connection) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let before = try snapshot(connection)
        let sql = """
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
            VALUES (\(session), \(seq), 0, 'x', '{"type":"x"}', '[]', '[]', 0)
            """
        if accepted {
            try connection.execute(sql)
            #expect(try connection.scalarInt("SELECT max(seq) FROM events") == 5)
        } else {
            let error = #expect(throws: LogError.self) { try connection.execute(sql) }
            #expect(error?.message.contains("gap-free") == true)
            #expect(try snapshot(connection) == before)
        }
    }

    @Test("A multi-row insert that runs into a gap stops there; what it stored is still gap-free")
    func multiRowInsert() throws {
        let (directory, connection) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let error = #expect(throws: LogError.self) {
            try connection.execute("""
                INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
                SELECT 1, column1, 0, 'x', '{"type":"x"}', '[]', '[]', 0 FROM (VALUES (5), (6), (8), (9))
                """)
        }
        #expect(error?.code == 1_811)
        #expect(try connection.scalarInt("SELECT max(seq) FROM events") == 6)
        #expect(try connection.scalarInt("SELECT count(*) FROM events") == 7)
    }

    @Test("A keyframe needs its event")
    func keyframeNeedsEvent() throws {
        let (directory, connection) = try fixture()
        defer { withExtendedLifetime(directory) {} }
        let error = #expect(throws: LogError.self) {
            try connection.execute("INSERT INTO keyframes VALUES (1, 42, '{}')")
        }
        #expect(error?.message == "rewind: a keyframe must belong to a stored event")
    }
}
