import Foundation
import RewindJSON

/// Which sessions a list shows: every condition given must hold (an empty filter keeps all).
/// Values match exactly, case and all.
public struct SessionFilter: Sendable, Equatable {
    /// The app's name (`sessions.app`).
    public var app: String?
    /// The app's version (`meta.version`).
    public var appVersion: String?
    /// The device model (`meta.device`).
    public var device: String?
    /// One of the session's tags (``SessionTags``).
    public var tag: String?
    /// Sessions that started at this time or later.
    public var since: Date?
    /// Sessions that started before this time.
    public var until: Date?

    public init(app: String? = nil, appVersion: String? = nil, device: String? = nil, tag: String? = nil,
                since: Date? = nil, until: Date? = nil) {
        self.app = app
        self.appVersion = appVersion
        self.device = device
        self.tag = tag
        self.since = since
        self.until = until
    }

    /// Whether the filter keeps every session.
    public var isEmpty: Bool { self == SessionFilter() }
}

/// One page of a session list, newest first (``LogReader/sessions(matching:after:limit:)``).
public struct SessionPage: Sendable, Equatable {
    /// The sessions, newest (highest id) first.
    public var sessions: [SessionInfo]
    /// What to pass as `after` for the next page; `nil` when this page is the last.
    public var next: Int64?

    public init(sessions: [SessionInfo], next: Int64?) {
        self.sessions = sessions
        self.next = next
    }
}

extension LogReader {
    /// The largest page ``sessions(matching:after:limit:)`` returns.
    public static let maxSessionPage = 1_000

    /// A page of the sessions `filter` keeps, newest first: the first `limit` (1 to
    /// ``maxSessionPage``; clamped) whose id is below `after`, or from the newest when `after`
    /// is `nil`.
    ///
    /// The cursor is a session id, and ids only grow: sessions recorded while a client pages
    /// come before its first page, never inside a later one, so following ``SessionPage/next``
    /// visits each session that existed at the first page once, in order. The page's sessions
    /// are found through the indexes of schema 6 (`app`, `app_version`, `device`, `started_at`,
    /// `session_tags`), and only they are counted in `events`.
    ///
    /// ```swift
    /// var page = try reader.sessions(matching: SessionFilter(tag: "bug report"), limit: 100)
    /// while let next = page.next { page = try reader.sessions(matching: filter, after: next, limit: 100) }
    /// ```
    public func sessions(matching filter: SessionFilter, after cursor: Int64? = nil, limit: Int) throws(LogError) -> SessionPage {
        let limit = min(max(limit, 1), Self.maxSessionPage)
        let (sql, values) = pageSQL(filter, after: cursor, limit: limit)
        var sessions = try listSessions(sql, values)
        var next: Int64?
        if sessions.count > limit {
            sessions.removeLast(sessions.count - limit)
            next = sessions.last?.id
        }
        return SessionPage(sessions: sessions, next: next)
    }

    /// The session whose uuid is exactly `uuid`, if the log holds it (one probe of the uuid's
    /// unique index: what a page needs to name the original of a branch listed without it).
    public func session(uuid: String) throws(LogError) -> SessionInfo? {
        try withStatement(sessionColumns + " WHERE s.uuid = ?1") { statement throws(LogError) -> SessionInfo? in
            try statement.bind(uuid, at: 1)
            return try statement.step() ? try RowDecoder.session(statement, path: path) : nil
        }
    }

    /// Every session `filter` keeps, oldest first (as ``sessions()`` lists them all).
    public func sessions(matching filter: SessionFilter) throws(LogError) -> [SessionInfo] {
        let (conditions, values) = filterSQL(filter, table: "s")
        return try listSessions(sessionColumns + Self.whereClause(conditions) + " ORDER BY s.id", values)
    }

    /// The conditions of `filter` on the sessions table named `table`, with their values in
    /// order. A file before schema 6 has no columns or tag table to match: the same values are
    /// read from `meta` itself, row by row.
    private func filterSQL(_ filter: SessionFilter, table: String) -> (conditions: [String], values: [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let app = filter.app {
            conditions.append("\(table).app = ?")
            values.append(.text(app))
        }
        if let version = filter.appVersion {
            conditions.append((indexesSessionMeta ? "\(table).app_version" : "(\(SchemaSQL.metaText("\(table).meta", "version")))") + " = ?")
            values.append(.text(version))
        }
        if let device = filter.device {
            conditions.append((indexesSessionMeta ? "\(table).device" : "(\(SchemaSQL.metaText("\(table).meta", "device")))") + " = ?")
            values.append(.text(device))
        }
        if let tag = filter.tag {
            conditions.append(indexesSessionMeta
                ? "\(table).id IN (SELECT session_id FROM session_tags WHERE tag = ?)"
                : "EXISTS (SELECT 1 FROM \(SchemaSQL.metaTagsFrom("\(table).meta")) WHERE \(SchemaSQL.metaTagsWhere) AND t.value = ?)")
            values.append(.text(tag))
        }
        if let since = filter.since {
            conditions.append("\(table).started_at >= ?")
            values.append(.real(since.timeIntervalSince1970))
        }
        if let until = filter.until {
            conditions.append("\(table).started_at < ?")
            values.append(.real(until.timeIntervalSince1970))
        }
        return (conditions, values)
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    private func listSessions(_ sql: String, _ values: [SQLValue]) throws(LogError) -> [SessionInfo] {
        try withStatement(sql) { statement throws(LogError) in
            try Self.bind(values, to: statement)
            var sessions: [SessionInfo] = []
            while try statement.step() { sessions.append(try RowDecoder.session(statement, path: path)) }
            return sessions
        }
    }

    /// The query plan SQLite picks for a page of `filter` (`EXPLAIN QUERY PLAN`, one detail per
    /// line), so a test can see that it goes through an index.
    package func sessionPagePlan(_ filter: SessionFilter, after cursor: Int64? = nil) throws(LogError) -> [String] {
        let (sql, values) = pageSQL(filter, after: cursor, limit: 100)
        return try withStatement("EXPLAIN QUERY PLAN " + sql) { statement throws(LogError) in
            try Self.bind(values, to: statement)
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3)) }
            return details
        }
    }

    /// The query of a page: the ids first, through an index and stopping at the limit; the
    /// per-session counts (three index probes into events and keyframes each) only for the
    /// page's rows. One row more than the page says whether another follows.
    private func pageSQL(_ filter: SessionFilter, after cursor: Int64?, limit: Int) -> (String, [SQLValue]) {
        var (conditions, values) = filterSQL(filter, table: "f")
        if let cursor {
            conditions.append("f.id < ?")
            values.append(.integer(cursor))
        }
        // The limit is bound, not written into the SQL: the reader caches one statement per text.
        values.append(.integer(Int64(limit + 1)))
        let sql = sessionColumns + """
             WHERE s.id IN (SELECT f.id FROM sessions f\(Self.whereClause(conditions)) ORDER BY f.id DESC LIMIT ?)
            ORDER BY s.id DESC
            """
        return (sql, values)
    }

    private static func bind(_ values: [SQLValue], to statement: any SQLRows) throws(LogError) {
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .text(let text): try statement.bind(text, at: position)
            case .real(let number): try statement.bind(number, at: position)
            case .integer(let number): try statement.bind(number, at: position)
            }
        }
    }
}

/// A value bound to a `?` of a list query.
private enum SQLValue {
    case text(String)
    case real(Double)
    case integer(Int64)
}
