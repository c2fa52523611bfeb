import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// The baseline: SQLite with nothing of ours — a prepared statement, one transaction per 1,000
/// rows, WAL and synchronous=NORMAL like the log. Variants add one feature of the log's schema
/// each, to show what it costs.
enum PlainInserts {
    enum Variant: String, CaseIterable {
        case plain
        case seqIndex = "UNIQUE(session_id, seq)"
        case gapTrigger = "gap-free seq trigger"
        case textIndex = "FTS5 index at commit"
        case textIndexNoSizes = "FTS5 columnsize=0 at commit"
        case noMutex = "UNIQUE, no connection mutex"
        case withoutRowid = "WITHOUT ROWID PRIMARY KEY(session_id, seq)"
        case logSchema = "the log's schema, one thread"
    }

    /// Seconds from the first BEGIN to the last COMMIT.
    static func run(_ rows: [EncodedEvent], path: String, variant: Variant = .plain) throws -> Double {
        if variant == .logSchema {
            // The real schema, made by the writer; then raw inserts on one thread.
            let writer = try LogWriter(path: path)
            _ = try writer.openSession(uuid: "bench", app: "Bench", startedAt: Date())
            writer.close()
        }
        let db = try Connection(path: path, serialized: variant != .noMutex)
        try db.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        let columns = """
            session_id INTEGER, seq INTEGER, at REAL, action_type TEXT, action TEXT, patch TEXT, inverse TEXT,
            hash INTEGER, duration_ns INTEGER, cause INTEGER, coalesced INTEGER
            """
        var schema = "CREATE TABLE keyframes(session_id INTEGER, seq INTEGER, state TEXT);"
        switch variant {
        case .plain:
            schema += "CREATE TABLE events(id INTEGER PRIMARY KEY, \(columns));"
        case .seqIndex, .gapTrigger, .textIndex, .textIndexNoSizes, .noMutex:
            schema += "CREATE TABLE events(id INTEGER PRIMARY KEY, \(columns), UNIQUE(session_id, seq) ON CONFLICT FAIL);"
        case .withoutRowid:
            schema += "CREATE TABLE events(\(columns), PRIMARY KEY(session_id, seq)) WITHOUT ROWID;"
        case .logSchema:
            schema = ""
        }
        if variant == .gapTrigger {
            schema += """
                CREATE TRIGGER gap BEFORE INSERT ON events
                WHEN NEW.seq IS NOT coalesce((SELECT max(seq) + 1 FROM events WHERE session_id = NEW.session_id), 0)
                BEGIN SELECT RAISE(FAIL, 'gap'); END;
                """
        }
        if variant == .textIndex {
            schema += "CREATE VIRTUAL TABLE events_fts USING fts5(action, content='events', content_rowid='id');"
        }
        if variant == .textIndexNoSizes {
            schema += "CREATE VIRTUAL TABLE events_fts USING fts5(action, content='events', content_rowid='id', columnsize=0);"
        }
        try db.execute(schema)
        let insert = try db.prepare("""
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, 1200, NULL, 0)
            """)
        let insertKeyframe = try db.prepare("INSERT INTO keyframes(session_id, seq, state) VALUES (1, ?1, ?2)")
        let index = [.textIndex, .textIndexNoSizes, .logSchema].contains(variant) ? try db.prepare("INSERT INTO events_fts(rowid, action) SELECT id, action FROM events WHERE id >= ?1") : nil
        let started = MonotonicClock.seconds()
        var start = 0
        while start < rows.count {
            let end = min(start + 1_000, rows.count)
            try db.execute("BEGIN")
            for row in rows[start..<end] {
                try insert.bind(row.seq, at: 1)
                try insert.bind(row.at, at: 2)
                try insert.bind(row.actionType, at: 3)
                try insert.bind(row.hash, at: 7)
                // Text bound without copies, as the log's writer does.
                try insert.withText(row.action, at: 4) { () throws(LogError) in
                    try insert.withText(row.patch, at: 5) { () throws(LogError) in
                        try insert.withText(row.inverse, at: 6) { () throws(LogError) in try insert.step() }
                    }
                }
                insert.reset()
                if let keyframe = row.keyframe {
                    try insertKeyframe.bind(row.seq, at: 1)
                    try insertKeyframe.withText(keyframe, at: 2) { () throws(LogError) in try insertKeyframe.step() }
                    insertKeyframe.reset()
                }
            }
            if let index {
                try index.bind(Int64(start + 1), at: 1)
                try index.step()
                index.reset()
            }
            try db.execute("COMMIT")
            start = end
        }
        return MonotonicClock.seconds() - started
    }
}
