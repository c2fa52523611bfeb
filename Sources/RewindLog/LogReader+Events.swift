import RewindJSON

extension LogReader {
    /// The events of `session` with `from ≤ seq ≤ to`, in seq order, filtered.
    ///
    /// - Parameters:
    ///   - typeGlob: an SQL GLOB on the action type (`todo/*`, `login`; case-sensitive).
    ///   - text: words that must all appear in the action's JSON (full-text search, case-insensitive).
    ///   - limit: the most events returned.
    ///   - includeKeyframes: also read the states stored as keyframes (into ``LogEvent/keyframe``).
    public func events(session: Int64, from: Int64 = 0, to: Int64? = nil, typeGlob: String? = nil,
                       text: String? = nil, limit: Int? = nil, includeKeyframes: Bool = false) throws(LogError) -> [LogEvent] {
        var sql = "SELECT " + RowDecoder.eventColumns
        sql += includeKeyframes ? ", k.state FROM events e LEFT JOIN keyframes k ON k.session_id = e.session_id AND k.seq = e.seq" : " FROM events e"
        sql += " WHERE e.session_id = ?1 AND e.seq BETWEEN ?2 AND ?3"
        var glob = typeGlob.flatMap { $0.isEmpty ? nil : $0 }
        if dialect == .postgres, let given = glob {
            // SQLite's GLOB matches nothing with an unclosed class; the regex says so as `nil`.
            guard let regex = TextQuery.globRegex(given) else { return [] }
            glob = regex
        }
        if dialect == .postgres, let text, TextQuery.matchesNothing(text) { return [] }
        let match: String?
        switch dialect {
        case .sqlite:
            if glob != nil { sql += " AND e.action_type GLOB ?4" }
            match = text.flatMap(TextQuery.fts5)
            if match != nil { sql += " AND e.id IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?5)" }
        case .postgres:
            // A GLOB as the anchored regular expression it means; the words through the
            // expression index on them (RewindPostgres's schema 5).
            if glob != nil { sql += " AND e.action_type ~ CAST(?4 AS TEXT)" }
            match = text.flatMap(TextQuery.tsquery)
            if match != nil {
                sql += " AND \(postgresTextDocument) @@ to_tsquery('simple', CAST(?5 AS TEXT))"
                // How many events the words match decides the plan (SQLPlanning.eachTime).
                sql = SQLPlanning.eachTime + sql
            }
        }
        sql += " ORDER BY e.seq LIMIT ?6"
        let events = try withStatement(sql) { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(from, at: 2)
            try statement.bind(to ?? Int64.max, at: 3)
            if let glob { try statement.bind(glob, at: 4) }
            if let match { try statement.bind(match, at: 5) }
            // No limit is the largest one: PostgreSQL refuses SQLite's -1.
            try statement.bind(Int64(limit ?? Int.max), at: 6)
            var events: [LogEvent] = []
            while try statement.step() {
                events.append(try RowDecoder.event(statement, path: path, keyframeColumn: includeKeyframes ? 11 : nil))
            }
            return events
        }
        return try addingSendSites(try markingNonFinite(events, session: session), session: session)
    }

    /// `events` with their send sites from the `send_sites` table.
    private func addingSendSites(_ events: [LogEvent], session: Int64) throws(LogError) -> [LogEvent] {
        guard hasSendSites, let first = events.first?.seq, let last = events.last?.seq else { return events }
        let sites = try withStatement("SELECT seq, file, line, function FROM send_sites WHERE session_id = ?1 AND seq BETWEEN ?2 AND ?3") {
            statement throws(LogError) -> [Int64: SendSite] in
            try statement.bind(session, at: 1)
            try statement.bind(first, at: 2)
            try statement.bind(last, at: 3)
            var sites: [Int64: SendSite] = [:]
            while try statement.step() {
                sites[statement.int64(0)] = SendSite(file: statement.string(1), line: Int(statement.int64(2)),
                                                     function: statement.string(3))
            }
            return sites
        }
        guard !sites.isEmpty else { return events }
        var marked = events
        for index in marked.indices {
            if let site = sites[marked[index].seq] { marked[index].site = site }
        }
        return marked
    }

    /// `events` with their non-finite pointers from the `non_finite` table.
    private func markingNonFinite(_ events: [LogEvent], session: Int64) throws(LogError) -> [LogEvent] {
        guard marksNonFinite, let first = events.first?.seq, let last = events.last?.seq else { return events }
        let marks = try withStatement("SELECT seq, pointers FROM non_finite WHERE session_id = ?1 AND seq BETWEEN ?2 AND ?3") {
            statement throws(LogError) -> [Int64: [String]] in
            try statement.bind(session, at: 1)
            try statement.bind(first, at: 2)
            try statement.bind(last, at: 3)
            var marks: [Int64: [String]] = [:]
            while try statement.step() {
                let pointers = try RowDecoder.json(statement, 1, column: "non_finite.pointers", path: path)
                marks[statement.int64(0)] = pointers.arrayValue?.compactMap(\.stringValue) ?? []
            }
            return marks
        }
        guard !marks.isEmpty else { return events }
        var marked = events
        for index in marked.indices {
            if let pointers = marks[marked[index].seq] { marked[index].nonFinite = pointers }
        }
        return marked
    }

    /// The event at `seq` of `session`, with its keyframe when one is stored.
    public func event(session: Int64, seq: Int64) throws(LogError) -> LogEvent? {
        try events(session: session, from: seq, to: seq, includeKeyframes: true).first
    }

    /// The latest keyframe of `session` at or before `seq`: where rebuilding state `seq` starts.
    public func keyframe(atOrBefore seq: Int64, session: Int64) throws(LogError) -> Keyframe? {
        try withStatement("SELECT seq, state FROM keyframes WHERE session_id = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1") { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(seq, at: 2)
            guard try statement.step() else { return nil }
            return Keyframe(seq: statement.int64(0),
                            state: try RowDecoder.json(statement, 1, column: "keyframes.state", path: path))
        }
    }

    /// The seqs of every keyframe of `session`, ascending.
    public func keyframeSeqs(session: Int64) throws(LogError) -> [Int64] {
        try withStatement("SELECT seq FROM keyframes WHERE session_id = ?1 ORDER BY seq") { statement throws(LogError) in
            try statement.bind(session, at: 1)
            var seqs: [Int64] = []
            while try statement.step() { seqs.append(statement.int64(0)) }
            return seqs
        }
    }

    /// Streams `(seq, patch, inverse, hash)` of `session` for `from ≤ seq ≤ to`, ascending, or
    /// descending when `descending` (for stepping backwards with the inverses).
    ///
    /// ```swift
    /// let start = try reader.keyframe(atOrBefore: 500, session: id)!
    /// let cursor = try reader.patches(session: id, from: start.seq + 1, to: 500)
    /// while let step = try cursor.next() { state = try apply(step.patch, to: state) }
    /// ```
    public func patches(session: Int64, from: Int64, to: Int64, descending: Bool = false) throws(LogError) -> PatchCursor {
        let order = descending ? "DESC" : "ASC"
        // A statement of its own: the cursor outlives this call and must not share a cached one.
        let statement = try connection.prepareRows("""
            SELECT seq, patch, inverse, hash FROM events WHERE session_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq \(order)
            """)
        try statement.bind(session, at: 1)
        try statement.bind(from, at: 2)
        try statement.bind(to, at: 3)
        return PatchCursor(statement: statement, path: path)
    }
}
