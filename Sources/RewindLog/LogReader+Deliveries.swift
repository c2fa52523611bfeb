import Foundation

/// What a local log still has to deliver to a server (store and forward).
public struct PendingDelivery: Sendable, Equatable {
    /// The session, with its last seq.
    public var session: SessionInfo
    /// The server it is meant for (as the recorder named it).
    public var server: String
    /// The highest seq the server acknowledged; -1 when none.
    public var ackedSeq: Int64
}

extension LogReader {
    /// The sessions marked for a server (``LogWriter/markDelivered(session:server:through:)``)
    /// whose server has not acknowledged their last event, or, for a session that ended, its end
    /// (a mark one past the last seq, made once the server said `ended`), oldest first. A log of schema 4 or
    /// older, read without writing, has none.
    public func pendingDeliveries() throws(LogError) -> [PendingDelivery] {
        let hasTable = try hasTable("deliveries")
        guard hasTable else { return [] }
        let rows = try withStatement("""
            SELECT d.session_id, d.server, d.acked_seq FROM deliveries d
            WHERE d.acked_seq < coalesce((SELECT max(seq) FROM events WHERE session_id = d.session_id), -1)
                + (SELECT CASE WHEN s.ended_at IS NULL THEN 0 ELSE 1 END FROM sessions s WHERE s.id = d.session_id)
            ORDER BY d.session_id
            """) { statement throws(LogError) -> [(Int64, String, Int64)] in
            var rows: [(Int64, String, Int64)] = []
            while try statement.step() { rows.append((statement.int64(0), statement.string(1), statement.int64(2))) }
            return rows
        }
        var pending: [PendingDelivery] = []
        for (id, server, acked) in rows {
            pending.append(PendingDelivery(session: try session(id: id), server: server, ackedSeq: acked))
        }
        return pending
    }

    /// The highest seq acknowledged for `session` by the server it is marked for, when that is
    /// `server` (any server when `nil`); -1 when none, no mark, or another server's.
    public func deliveredSeq(session: Int64, server: String? = nil) throws(LogError) -> Int64 {
        let hasTable = try hasTable("deliveries")
        guard hasTable else { return -1 }
        return try withStatement("SELECT acked_seq, server FROM deliveries WHERE session_id = ?1") { statement throws(LogError) in
            try statement.bind(session, at: 1)
            guard try statement.step() else { return -1 }
            if let server, statement.string(1) != server { return -1 }
            return statement.int64(0)
        }
    }
}

extension LogReader {
    /// The bytes the log's live pages take (pages in use times the page size): what pruning
    /// frees, though the file keeps its size and reuses the freed pages for later writes.
    public func usedBytes() throws(LogError) -> Int64 {
        if dialect == .postgres {
            return try withStatement("SELECT pg_database_size(current_database())") { statement throws(LogError) in
                try statement.step() ? statement.int64(0) : 0
            }
        }
        let pages = try withStatement("PRAGMA page_count") { statement throws(LogError) in try statement.step() ? statement.int64(0) : 0 }
        let free = try withStatement("PRAGMA freelist_count") { statement throws(LogError) in try statement.step() ? statement.int64(0) : 0 }
        let size = try withStatement("PRAGMA page_size") { statement throws(LogError) in try statement.step() ? statement.int64(0) : 4_096 }
        return (pages - free) * size
    }
}
