import Foundation
import RewindJSON

extension WriterEngine {
    func openSession(uuid: String, app: String, startedAt: Date, meta: String, replayOf: String?,
                     run: String? = nil, hashVersion: StateHashVersion = .v1, owner: SessionOwner? = nil) throws(LogError) -> Int64 {
        let insert = try connection.prepare("""
            INSERT INTO sessions(uuid, app, started_at, meta, replay_of, run, hash_version, owner, secret) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT(uuid) DO NOTHING
            """)
        try insert.bind(uuid, at: 1)
        try insert.bind(app, at: 2)
        try insert.bind(startedAt.timeIntervalSince1970, at: 3)
        try insert.bind(meta, at: 4)
        try insert.bind(replayOf, at: 5)
        try insert.bind(run, at: 6)
        try insert.bind(Int64(hashVersion.rawValue), at: 7)
        try insert.bind(owner?.digest, at: 8)
        try insert.bind(owner?.secret, at: 9)
        try insert.step()
        let select = try connection.prepare("SELECT id, hash_version, run, owner FROM sessions WHERE uuid = ?1")
        try select.bind(uuid, at: 1)
        guard try select.step() else {
            throw LogError(kind: .unknownSession(uuid), message: "it vanished right after it was recorded", path: connection.path)
        }
        let id = select.int64(0)
        // Whose it is, first: a resume that does not prove it learns nothing more of the session.
        _ = try claim(id: id, uuid: uuid, stored: select.isNull(3) ? nil : select.string(3), by: owner)
        // A session continued (an app reconnecting) keeps the hash it started with.
        guard select.int64(1) == Int64(hashVersion.rawValue) else {
            throw LogError(kind: .hashVersionMismatch(session: uuid, stored: Int(select.int64(1)), requested: hashVersion.rawValue),
                           message: "", path: connection.path)
        }
        // …and the run it was recorded in: a resume that names another run is refused, not
        // silently filed under the first one.
        let storedRun = select.isNull(2) ? nil : select.string(2)
        if let run, run != storedRun {
            throw LogError(kind: .runMismatch(session: uuid, stored: storedRun, requested: run), message: "", path: connection.path)
        }
        return id
    }

    /// Checks that `owner` may open the session whose stored digest is `stored`: the same digest,
    /// or, for a session that has none yet (stored before owners, or by an app that gave no
    /// secret), anyone: the first secret given claims it. `true` when this call claimed it.
    private func claim(id: Int64, uuid: String, stored: String?, by owner: SessionOwner?) throws(LogError) -> Bool {
        guard let stored else {
            guard let owner else { return false }
            let update = try connection.prepare("UPDATE sessions SET owner = ?2, secret = coalesce(secret, ?3) WHERE id = ?1 AND owner IS NULL")
            try update.bind(id, at: 1)
            try update.bind(owner.digest, at: 2)
            try update.bind(owner.secret, at: 3)
            try update.step()
            return true
        }
        guard let owner, owner.matches(stored) else {
            throw LogError(kind: .notOwner(session: uuid), message: "", path: connection.path)
        }
        return false
    }

    /// The secret a log on the app's device keeps for a session (``SessionOwner/keeping(_:)``).
    func secret(session id: Int64) throws(LogError) -> String? {
        let select = try connection.prepare("SELECT secret FROM sessions WHERE id = ?1")
        try select.bind(id, at: 1)
        guard try select.step(), !select.isNull(0) else { return nil }
        return select.string(0)
    }

    /// Records that `server` holds `session` through `seq`: never lowering what the same server
    /// is recorded to hold, and replacing another server's mark (the values in SET are the old
    /// row's, so the CASE compares with the server recorded before). `-1` marks a session as
    /// meant for `server` before anything is acknowledged.
    func markDelivered(session: Int64, server: String, through seq: Int64) throws(LogError) {
        let upsert = try connection.prepare("""
            INSERT INTO deliveries(session_id, server, acked_seq) VALUES (?1, ?2, ?3)
            ON CONFLICT(session_id) DO UPDATE SET server = excluded.server,
                acked_seq = CASE WHEN server = excluded.server THEN max(acked_seq, excluded.acked_seq) ELSE excluded.acked_seq END
            """)
        try upsert.bind(session, at: 1)
        try upsert.bind(server, at: 2)
        try upsert.bind(seq, at: 3)
        try upsert.step()
    }

    func limitPages(_ pages: Int?) throws(LogError) -> Int {
        let count = Int(try connection.scalarInt("PRAGMA page_count") ?? 0)
        // SQLite never sets the cap below the file's size; 4294967294 is its own largest.
        try connection.execute("PRAGMA max_page_count = \(pages.map { max($0, count) } ?? 4_294_967_294)")
        return count
    }

    func endSession(id: Int64, at endedAt: Date) throws(LogError) {
        let update = try connection.prepare("UPDATE sessions SET ended_at = ?2 WHERE id = ?1")
        try update.bind(id, at: 1)
        try update.bind(endedAt.timeIntervalSince1970, at: 2)
        try update.step()
        guard connection.changes > 0 else {
            throw LogError(kind: .unknownSession(String(id)), message: "", path: connection.path)
        }
    }

    /// Deletes whole sessions. The append-only triggers let a DELETE through only for sessions
    /// listed in `rewind_prune`; the list lives only inside this transaction.
    func prune(sessions ids: [Int64]) throws(LogError) -> [Int64] {
        // FTS5 can take out only what it indexed: index every committed event first.
        try indexCommitted()
        let removed = try connection.transaction(.immediate) { () throws(LogError) -> [Int64] in
            try connection.execute("DELETE FROM rewind_prune")
            let mark = try connection.prepare("INSERT OR IGNORE INTO rewind_prune(session_id) SELECT id FROM sessions WHERE id = ?1")
            for id in ids {
                try mark.bind(id, at: 1)
                try mark.step()
                mark.reset()
            }
            try connection.execute("""
                INSERT INTO events_fts(events_fts, rowid, action)
                    SELECT 'delete', id, action FROM events WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM non_finite WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM send_sites WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM deliveries WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM session_tags WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM keyframes WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM events WHERE session_id IN (SELECT session_id FROM rewind_prune);
                DELETE FROM sessions WHERE id IN (SELECT session_id FROM rewind_prune);
                -- The next events may reuse the rowids above the highest left: the index covers
                -- every row left, and no more.
                UPDATE rewind_fts_progress SET id = (SELECT coalesce(max(id), 0) FROM events);
                """)
            let list = try connection.prepare("SELECT session_id FROM rewind_prune ORDER BY session_id")
            var removed: [Int64] = []
            while try list.step() { removed.append(list.int64(0)) }
            try connection.execute("DELETE FROM rewind_prune")
            return removed
        }
        for id in removed { nextSeq[id] = nil }
        try reloadIndexProgress()
        return removed
    }

    func prune(inactiveBefore cutoff: Double) throws(LogError) -> [Int64] {
        let select = try connection.prepare("""
            SELECT s.id FROM sessions s
            WHERE max(coalesce(s.ended_at, s.started_at), s.started_at,
                      coalesce((SELECT at FROM events WHERE session_id = s.id ORDER BY seq DESC LIMIT 1), 0)) < ?1
            """)
        try select.bind(cutoff, at: 1)
        var ids: [Int64] = []
        while try select.step() { ids.append(select.int64(0)) }
        return ids.isEmpty ? [] : try prune(sessions: ids)
    }
}

extension WriterEngine: LogStoreOperations {
    func sessionID(uuid: String) throws(LogError) -> Int64? {
        let select = try connection.prepare("SELECT id FROM sessions WHERE uuid = ?1")
        try select.bind(uuid, at: 1)
        return try select.step() ? select.int64(0) : nil
    }
}
