import Foundation
import RewindJSON
import Testing
@testable import RewindLog

/// Schema 2 marks the events whose numbers were NaN or infinite; a schema-1 file is migrated
/// when a writer (or a reader that may write) opens it, and nothing in it changes.
@Suite("Log file: schema 1 to 2")
struct SchemaMigrationTests {
    /// A log as a schema-1 Rewind wrote it: its SQL, its header, one session of three events.
    static func makeVersion1(at path: String) throws {
        let raw = try Connection(path: path)
        try raw.execute("PRAGMA page_size=\(LogSchema.pageSize)")
        try raw.execute("PRAGMA journal_mode=WAL")
        try raw.execute(SchemaSQL.version1)
        try raw.execute("INSERT INTO rewind_schema(version, applied_at) VALUES (1, 1700000000)")
        try raw.execute("PRAGMA user_version=1")
        try raw.execute("PRAGMA application_id=\(LogSchema.applicationID)")
        try raw.execute("INSERT INTO sessions(uuid, app, started_at, meta) VALUES ('old-session', 'Old', 1700000000, '{}')")
        var state: JSONValue = ["n": 0]
        for seq in 0..<3 {
            let patch: JSONValue = seq == 0 ? [] : [["op": "replace", "path": "/n", "value": .number(JSONNumber(seq))]]
            if seq > 0 { state = ["n": .number(JSONNumber(seq))] }
            let insert = try raw.prepare("""
                INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
                VALUES (1, ?1, 1700000000, 'tick', '{"type":"tick"}', ?2, '[]', ?3)
                """)
            try insert.bind(Int64(seq), at: 1)
            try insert.bind(patch.serialized(.compact), at: 2)
            try insert.bind(Int64(bitPattern: state.stableHash), at: 3)
            try insert.step()
            if seq == 0 {
                let keyframe = try raw.prepare("INSERT INTO keyframes(session_id, seq, state) VALUES (1, 0, ?1)")
                try keyframe.bind(state.serialized(.compact), at: 1)
                try keyframe.step()
            }
        }
    }

    @Test("a schema-1 file opened by a writer becomes schema 2: its events unchanged, new events marked")
    func migratesAndMarks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.db")
        try Self.makeVersion1(at: path)
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == 1)

        let writer = try LogWriter(path: path)
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("PRAGMA user_version") == 2)
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_schema") == 2)
        #expect(try raw.scalarInt("SELECT count(*) FROM non_finite") == 0)
        // The old session reads as before, with no marks.
        let old = try LogReader(path: path)
        let oldEvents = try old.events(session: 1)
        #expect(oldEvents.map(\.seq) == [0, 1, 2])
        #expect(oldEvents.allSatisfy { $0.nonFinite.isEmpty })

        // A new session whose events carry marks: written, and read back with them.
        let id = try writer.openSession(uuid: "new-session", app: "New", startedAt: Date())
        var builder = EventBuilder(sessionID: id)
        var initial = builder.initial(state: ["ratio": "NaN"], at: Date())
        initial.nonFinite = ["/state/ratio"]
        var next = builder.next(action: ["setRatio": ["_0": "Infinity"]], state: ["ratio": "Infinity"], at: Date())
        next.nonFinite = ["/state/ratio", "/action/setRatio/_0"]
        let plain = builder.next(action: ["setRatio": ["_0": 2]], state: ["ratio": 2], at: Date())
        writer.append([initial, next, plain])
        try writer.flush()
        writer.close()
        let reader = try LogReader(path: path)
        let events = try reader.events(session: id)
        #expect(events.map(\.nonFinite) == [["/state/ratio"], ["/state/ratio", "/action/setRatio/_0"], []])
        #expect(try reader.event(session: id, seq: 1)?.nonFinite == ["/state/ratio", "/action/setRatio/_0"])
        #expect(try Connection(path: path).scalarInt("SELECT count(*) FROM non_finite") == 2)
    }

    @Test("marks are append-only and go only with their session's prune")
    func marksAreAppendOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("marks.db")
        let writer = try LogWriter(path: path)
        let id = try writer.openSession(uuid: "s", app: "A", startedAt: Date())
        var builder = EventBuilder(sessionID: id)
        var initial = builder.initial(state: ["x": "NaN"], at: Date())
        initial.nonFinite = ["/state/x"]
        writer.append([initial])
        try writer.flush()
        let raw = try Connection(path: path)
        #expect(throws: LogError.self) { try raw.execute("UPDATE non_finite SET pointers = '[]'") }
        #expect(throws: LogError.self) { try raw.execute("DELETE FROM non_finite") }
        #expect(throws: LogError.self) { try raw.execute("INSERT INTO non_finite(session_id, seq, pointers) VALUES (\(id), 5, '[]')") }
        #expect(try writer.prune(sessions: [id]) == [id])
        #expect(try raw.scalarInt("SELECT count(*) FROM non_finite") == 0)
        writer.close()
    }
}
