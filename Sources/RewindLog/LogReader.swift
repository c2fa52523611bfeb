import Foundation
import RewindJSON
import RewindSupport

/// Reads a log on its own connection, while a ``LogWriter`` may be writing it.
///
/// Every call runs under the reader's lock, so one reader may be shared between threads; open
/// one per thread when they read a lot at once (each has its own connection and cache).
///
/// ```swift
/// let reader = try LogReader(path: "/tmp/rewind.db")
/// let session = try reader.session(named: "latest")
/// let logins = try reader.events(session: session.id, typeGlob: "login*")
/// ```
public final class LogReader: @unchecked Sendable {
    /// The log file, or the database's URL without its password.
    public let path: String
    let connection: any SQLReadConnection
    /// The SQL the log's store speaks.
    package var dialect: SQLDialect { connection.dialect }
    /// The prepared statements by their SQL; its lock is the reader's lock.
    private let statements = Mutex<[String: any SQLRows]>([:])

    /// Opens the log at `path`; throws when it does not exist, is not a Rewind log or was written
    /// by a newer Rewind.
    public convenience init(path: String) throws(LogError) {
        let connection = try LogOpener.open(path: path, access: .read)
        try connection.execute("PRAGMA query_only=1")
        try self.init(connection: connection, location: path)
    }

    /// A reader on `connection`, a log's store opened elsewhere (RewindPostgres opens a team
    /// store's connection and checks its schema); `location` names it in errors.
    package init(connection: any SQLReadConnection, location: String) throws(LogError) {
        self.path = location
        self.connection = connection
        guard connection.dialect == .sqlite else {
            // A team store is always migrated to the current schema before it is read.
            marksNonFinite = true
            hasSendSites = true
            sessionColumns = Self.sessionQuery(withRun: true, withHashVersion: true)
            indexesSessionMeta = true
            hasOwners = true
            // The text index's expression: on the writer's lexemes since schema 6, its words
            // since schema 5; the benchmark reads earlier layouts too, through their own.
            let columns = try connection.scalarInt("""
                SELECT count(*) FILTER (WHERE attname = 'words') + 2 * count(*) FILTER (WHERE attname = 'lexemes')
                FROM pg_attribute WHERE attrelid = to_regclass('events') AND NOT attisdropped
                """) ?? 0
            postgresTextDocument = columns & 2 != 0 ? TextQuery.postgresLexemeDocument(alias: "e")
                : columns & 1 != 0 ? TextQuery.postgresDocument(alias: "e")
                : "to_tsvector('simple', \(TextQuery.postgresDocumentFromAction("e.action")))"
            return
        }
        postgresTextDocument = ""
        hasOwners = try connection.scalarInt("SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'owner'") == 1
        // An older file opened read-only keeps its schema: it has no marks or sites to read.
        marksNonFinite = try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'non_finite'") == 1
        hasSendSites = try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'send_sites'") == 1
        let hasHashVersions = try connection.scalarInt("SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'hash_version'") == 1
        sessionColumns = Self.sessionQuery(withRun: hasSendSites, withHashVersion: hasHashVersions)
        // Generated columns are hidden from table_info; table_xinfo lists them.
        indexesSessionMeta = try connection.scalarInt("""
            SELECT (SELECT count(*) FROM pragma_table_xinfo('sessions') WHERE name IN ('app_version', 'device'))
                 + (SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'session_tags')
            """) == 3
    }

    /// Whether the file has the `non_finite` table (schema 2 and later).
    let marksNonFinite: Bool
    /// A team store's text document for an event `e`, as its text index has it (empty for SQLite).
    let postgresTextDocument: String
    /// Whether the log has `sessions.owner` and `sessions.secret` (schema 7 and later).
    let hasOwners: Bool

    /// Who owns session `id` (``SessionOwner``): the digest the log keeps, with the secret where
    /// the log is on the app's device; `nil` when the session has no owner (or the log predates
    /// owners). Never part of ``SessionInfo``: nothing shows it.
    package func owner(session id: Int64) throws(LogError) -> SessionOwner? {
        guard hasOwners else { return nil }
        return try withStatement("SELECT owner, secret FROM sessions WHERE id = ?1") { statement throws(LogError) -> SessionOwner? in
            try statement.bind(id, at: 1)
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return SessionOwner(secret: statement.isNull(1) ? nil : statement.string(1), digest: statement.string(0))
        }
    }
    /// Whether the file has the `send_sites` table and `sessions.run` (schema 3 and later).
    let hasSendSites: Bool
    /// The sessions query for this file's schema.
    let sessionColumns: String
    /// Whether the file has `sessions.app_version`, `sessions.device` and `session_tags` (schema
    /// 6 and later); filters on an older file read `meta` itself. (A `var` only so that a test
    /// can ask for the older file's conditions on a current one.)
    var indexesSessionMeta: Bool

    /// Whether the log has table `name` (an older SQLite file may not; a team store always has
    /// every table, being migrated before it is read).
    func hasTable(_ name: String) throws(LogError) -> Bool {
        guard dialect == .sqlite else { return true }
        return try withStatement("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1") { statement throws(LogError) in
            try statement.bind(name, at: 1)
            return try statement.step() && statement.int64(0) > 0
        }
    }

    /// SQL for the bytes of text column `column` (SQLite's `length` counts characters).
    func byteLength(_ column: String) -> String {
        dialect == .sqlite ? "length(CAST(\(column) AS BLOB))" : "octet_length(\(column))"
    }

    /// Runs `body` under the lock with the cached statement for `sql`, reset afterwards.
    func withStatement<R>(_ sql: String, _ body: (any SQLRows) throws(LogError) -> R) throws(LogError) -> R {
        // The Result carries the error out of the lock typed (`withLock` rethrows `any Error`).
        try statements.withLock { statements in
            Result { () throws(LogError) -> R in
                let statement: any SQLRows
                if let cached = statements[sql] {
                    statement = cached
                } else {
                    statement = try connection.prepareRows(sql)
                    statements[sql] = statement
                }
                defer {
                    statement.reset()
                    statement.clearBindings()
                }
                return try body(statement)
            }
        }.get()
    }

    // MARK: Sessions

    static func sessionQuery(withRun: Bool, withHashVersion: Bool) -> String {
        """
        SELECT s.id, s.uuid, s.app, s.started_at, s.ended_at, s.meta, s.replay_of,
               (SELECT max(seq) FROM events WHERE session_id = s.id),
               (SELECT count(*) FROM keyframes WHERE session_id = s.id),
               (SELECT at FROM events WHERE session_id = s.id ORDER BY seq DESC LIMIT 1),
               \(withRun ? "s.run" : "NULL"),
               \(withHashVersion ? "s.hash_version" : "1"),
               (SELECT e.action FROM events e WHERE e.session_id = s.id AND e.action_type = '\(SessionInfo.crashedType)'
                  AND e.seq = (SELECT max(seq) FROM events WHERE session_id = s.id))
        FROM sessions s
        """
    }

    /// Every session, oldest first, with its counts and times.
    public func sessions() throws(LogError) -> [SessionInfo] {
        try withStatement(sessionColumns + " ORDER BY s.id") { statement throws(LogError) in
            var sessions: [SessionInfo] = []
            while try statement.step() { sessions.append(try RowDecoder.session(statement, path: path)) }
            return sessions
        }
    }

    /// The session with id `id`.
    public func session(id: Int64) throws(LogError) -> SessionInfo {
        let found = try withStatement(sessionColumns + " WHERE s.id = ?1") { statement throws(LogError) -> SessionInfo? in
            try statement.bind(id, at: 1)
            return try statement.step() ? try RowDecoder.session(statement, path: path) : nil
        }
        guard let found else { throw LogError(kind: .unknownSession(String(id)), message: "", path: path) }
        return found
    }

    /// The session a user named: its id (`12`), a prefix of its uuid (`3f2a`, any case), or
    /// `latest` (the one started last that is neither a branch nor a replay: both are made from a
    /// session and named by their own id or uuid, so `latest` keeps naming the recording they
    /// came from).
    ///
    /// Digits name an id first and a uuid prefix only when no session has that id. A prefix that
    /// matches several sessions is an error that lists them.
    public func session(named name: String) throws(LogError) -> SessionInfo {
        let name = name.trimmingCharacters(in: .whitespaces)
        if name.lowercased() == "latest" {
            let latest = try withStatement(sessionColumns + " WHERE s.replay_of IS NULL ORDER BY s.started_at DESC, s.id DESC LIMIT 1") { statement throws(LogError) -> SessionInfo? in
                try statement.step() ? try RowDecoder.session(statement, path: path) : nil
            }
            guard let latest else {
                let any = try sessionCount() > 0
                throw LogError(kind: .unknownSession(name), message: any ? "the log holds only branches and replays; name one by its id or uuid" : "the log has no sessions yet",
                               path: path)
            }
            return latest
        }
        if let id = Int64(name) {
            do {
                return try session(id: id)
            } catch where error.kind == .unknownSession(String(id)) {
                // Not an id: it may still be the start of a uuid.
            }
        }
        guard !name.isEmpty else { throw LogError(kind: .unknownSession(name), message: "give an id, a uuid prefix or latest", path: path) }
        let matches = try withStatement(sessionColumns + " WHERE substr(lower(s.uuid), 1, length(CAST(?1 AS TEXT))) = lower(CAST(?1 AS TEXT)) ORDER BY s.id LIMIT 11") { statement throws(LogError) in
            try statement.bind(name, at: 1)
            var sessions: [SessionInfo] = []
            while try statement.step() { sessions.append(try RowDecoder.session(statement, path: path)) }
            return sessions
        }
        switch matches.count {
        case 0:
            throw LogError(kind: .unknownSession(name), message: "no id or uuid matches it", path: path)
        case 1:
            return matches[0]
        default:
            var candidates = matches.prefix(10).map { "\($0.uuid) (id \($0.id))" }
            if matches.count > 10 { candidates.append("and more") }
            throw LogError(kind: .ambiguousSession(name, candidates: candidates), message: "", path: path)
        }
    }

    /// SQL that holds for a branch session (``SessionInfo/branch``): it replays another and its
    /// meta has a `branch` object. A meta that is not JSON is no branch (and no error).
    var isBranchSQL: String {
        switch dialect {
        case .sqlite:
            return """
                (s.replay_of IS NOT NULL AND CASE WHEN json_valid(s.meta) THEN coalesce(json_type(s.meta, '$.branch'), '') = 'object' ELSE 0 END)
                """
        case .postgres:
            // rewind_meta_type (the team store's schema) is NULL for a meta jsonb cannot read.
            return "(s.replay_of IS NOT NULL AND coalesce(rewind_meta_type(s.meta, 'branch'), '') = 'object')"
        }
    }

    /// How many sessions the log holds.
    private func sessionCount() throws(LogError) -> Int {
        try withStatement("SELECT count(*) FROM sessions") { statement throws(LogError) in
            try statement.step()
            return Int(statement.int64(0))
        }
    }

    /// The number of events stored, in one session or in the whole log.
    public func eventCount(session: Int64? = nil) throws(LogError) -> Int {
        if let session {
            // Seqs are gap-free from 0, so the count is the last seq plus one: one index probe.
            return try withStatement("SELECT max(seq) FROM events WHERE session_id = ?1") { statement throws(LogError) in
                try statement.bind(session, at: 1)
                try statement.step()
                return statement.isNull(0) ? 0 : Int(statement.int64(0)) + 1
            }
        }
        return try withStatement("SELECT count(*) FROM events") { statement throws(LogError) in
            try statement.step()
            return Int(statement.int64(0))
        }
    }
}

extension LogReader {
    /// Runs `body`, whose queries on this reader stop with an error for which
    /// ``LogError/isInterrupted`` holds once `seconds` have passed.
    package func withTimeBudget<T, E: Error>(seconds: Double, _ body: () throws(E) -> T) throws(E) -> T {
        try connection.withTimeBudget(seconds: seconds, body)
    }
}
