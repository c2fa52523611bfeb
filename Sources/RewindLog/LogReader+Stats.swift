import Foundation

extension LogReader {
    /// Counts and sizes of the whole log. Reads every page when `dbstat` is available (Debian's
    /// SQLite has it), so it takes a moment on a large file.
    public func stats() throws(LogError) -> LogStats {
        func scalar(_ sql: String) throws(LogError) -> Int64 {
            try withStatement(sql) { statement throws(LogError) in
                guard try statement.step() else { return 0 }
                return statement.int64(0)
            }
        }
        let payload = """
            SELECT coalesce(sum(\(byteLength("action")) + \(byteLength("patch")) + \(byteLength("inverse"))), 0) FROM events
            """
        let eventPayload = try scalar(payload)
        let keyframePayload = try scalar("SELECT coalesce(sum(\(byteLength("state"))), 0) FROM keyframes")
        if dialect == .postgres {
            // A team store: what Rewind's tables take with their indexes (the log's "file"),
            // and the database around them.
            // A partitioned table (or index) has no storage of its own: its partitions' sizes are
            // summed (`pg_partition_tree` of a plain one is itself).
            func size(_ function: String, _ relation: String) -> String {
                "(SELECT coalesce(sum(\(function)(relid)), 0) FROM pg_partition_tree('\(relation)'))"
            }
            let tables = ["sessions", "events", "keyframes", "non_finite", "send_sites", "session_tags", "deliveries", "rewind_schema"]
            let stored = try scalar("SELECT " + tables.map { size("pg_total_relation_size", $0) }.joined(separator: " + "))
            return LogStats(
                sessions: Int(try scalar("SELECT count(*) FROM sessions")),
                events: Int(try scalar("SELECT count(*) FROM events")),
                keyframes: Int(try scalar("SELECT count(*) FROM keyframes")),
                fileBytes: stored,
                walBytes: 0, pageSize: 8_192,
                pageCount: Int(stored / 8_192), freePages: 0,
                eventBytes: try scalar("SELECT \(size("pg_table_size", "events")) + \(size("pg_relation_size", "events_pkey"))"),
                keyframeBytes: try scalar("SELECT \(size("pg_total_relation_size", "keyframes"))"),
                textIndexBytes: try scalar("SELECT \(size("pg_relation_size", "events_lexemes"))"),
                eventPayloadBytes: eventPayload, keyframePayloadBytes: keyframePayload, measuredByPages: true,
                databaseBytes: try scalar("SELECT pg_database_size(current_database())"))
        }
        var eventBytes = eventPayload
        var keyframeBytes = keyframePayload
        var textBytes: Int64 = 0
        var byPages = false
        if let pages = try? pageBytesByObject() {
            byPages = true
            eventBytes = pages.filter { $0.key == "events" || $0.key.hasPrefix("sqlite_autoindex_events") }.values.reduce(0, +)
            keyframeBytes = pages.filter { $0.key == "keyframes" || $0.key.hasPrefix("sqlite_autoindex_keyframes") }.values.reduce(0, +)
            textBytes = pages.filter { $0.key.hasPrefix("events_fts") }.values.reduce(0, +)
        }
        func size(_ file: String) -> Int64 {
            var info = stat()
            return stat(file, &info) == 0 ? Int64(info.st_size) : 0
        }
        return LogStats(
            sessions: Int(try scalar("SELECT count(*) FROM sessions")),
            events: Int(try scalar("SELECT count(*) FROM events")),
            keyframes: Int(try scalar("SELECT count(*) FROM keyframes")),
            fileBytes: size(path),
            walBytes: size(path + "-wal"),
            pageSize: Int(try scalar("PRAGMA page_size")),
            pageCount: Int(try scalar("PRAGMA page_count")),
            freePages: Int(try scalar("PRAGMA freelist_count")),
            eventBytes: eventBytes,
            keyframeBytes: keyframeBytes,
            textIndexBytes: textBytes,
            eventPayloadBytes: eventPayload,
            keyframePayloadBytes: keyframePayload,
            measuredByPages: byPages)
    }

    /// Bytes of pages per table or index, from the `dbstat` virtual table.
    private func pageBytesByObject() throws(LogError) -> [String: Int64] {
        try withStatement("SELECT name, sum(pgsize) FROM dbstat GROUP BY name") { statement throws(LogError) in
            var sizes: [String: Int64] = [:]
            while try statement.step() { sizes[statement.string(0)] = statement.int64(1) }
            return sizes
        }
    }
}
