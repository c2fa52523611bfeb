import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

/// Schema 2 marks the events whose numbers were NaN or infinite; a schema-1 file is migrated
/// when a writer (or a reader that may write) opens it, and nothing in it changes.
@Suite("Log file: schema 1 to 2", .ownThreads)
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

    @Test("a schema-1 file opened by a writer becomes current: its events unchanged, new events marked")
    func migratesAndMarks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.db")
        try Self.makeVersion1(at: path)
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == 1)

        let writer = try LogWriter(path: path)
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("PRAGMA user_version") == Int64(LogSchema.currentVersion))
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_schema") == Int64(LogSchema.currentVersion))
        #expect(try raw.scalarInt("SELECT count(*) FROM non_finite") == 0)
        // Schema 4: writers before it indexed every event in its own commit, so the index's
        // progress starts at the highest event.
        #expect(try raw.scalarInt("SELECT id FROM rewind_fts_progress") == 3)
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

/// Schema 3 keeps each action's send site and each session's run; a schema-2 file is migrated
/// when a writer opens it, and read as it stands when it cannot be written.
@Suite("Log file: schema 2 to 3 (and on to 4)", .ownThreads)
struct SendSiteSchemaTests {
    static func makeVersion2(at path: String) throws {
        try SchemaMigrationTests.makeVersion1(at: path)
        let raw = try Connection(path: path)
        try raw.execute(SchemaSQL.version2)
        try raw.execute("INSERT INTO rewind_schema(version, applied_at) VALUES (2, 1700000001)")
        try raw.execute("PRAGMA user_version=2")
    }

    @Test("a schema-2 file becomes current: old sessions have no run or sites; new ones keep theirs")
    func migrates() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v2.db")
        try Self.makeVersion2(at: path)
        let writer = try LogWriter(path: path)
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == Int64(LogSchema.currentVersion))
        let id = try writer.openSession(uuid: "new", app: "New", startedAt: Date(), run: "run-1")
        var builder = EventBuilder(sessionID: id)
        let initial = builder.initial(state: ["n": 0], at: Date())
        var sent = builder.next(action: ["type": "tick"], state: ["n": 1], at: Date())
        sent.site = SendSite(file: "App/View.swift", line: 12, function: "body")
        let plain = builder.next(action: ["type": "tick"], state: ["n": 2], at: Date())
        writer.append([initial, sent, plain])
        try writer.flush()
        writer.close()

        let reader = try LogReader(path: path)
        let old = try reader.session(named: "old-session")
        #expect(old.run == nil)
        #expect(try reader.events(session: old.id).allSatisfy { $0.site == nil })
        let new = try reader.session(id: id)
        #expect(new.run == "run-1")
        #expect(try reader.events(session: id).map(\.site) == [nil, SendSite(file: "App/View.swift", line: 12, function: "body"), nil])
        #expect(try reader.event(session: id, seq: 1)?.site?.description == "App/View.swift:12 body")
    }

    @Test("send sites are append-only, need their event, and go only with their session's prune; a run is fixed")
    func sitesAreAppendOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sites.db")
        let writer = try LogWriter(path: path)
        let id = try writer.openSession(uuid: "s", app: "A", startedAt: Date(), run: "r")
        var builder = EventBuilder(sessionID: id)
        var initial = builder.initial(state: ["x": 1], at: Date())
        initial.site = SendSite(file: "A/B.swift", line: 1, function: "f()")
        writer.append([initial])
        try writer.flush()
        let raw = try Connection(path: path)
        #expect(throws: LogError.self) { try raw.execute("UPDATE send_sites SET line = 2") }
        #expect(throws: LogError.self) { try raw.execute("DELETE FROM send_sites") }
        #expect(throws: LogError.self) { try raw.execute("INSERT INTO send_sites(session_id, seq, file, line, function) VALUES (\(id), 5, 'x', 1, 'y')") }
        #expect(throws: LogError.self) { try raw.execute("UPDATE sessions SET run = 'other'") }
        #expect(try raw.scalarInt("SELECT count(*) FROM send_sites") == 1)
        #expect(try writer.prune(sessions: [id]) == [id])
        #expect(try raw.scalarInt("SELECT count(*) FROM send_sites") == 0)
        writer.close()
    }
}
