import CSQLite
import Dispatch

/// One SQLite connection: owns its `sqlite3*` and closes it in `deinit`.
///
/// Every connection Rewind opens sets `PRAGMA synchronous=NORMAL` (safe in WAL mode, and much
/// cheaper than Debian's default FULL) and a busy timeout. A connection is used by one thread at
/// a time; the writer keeps its own on its own thread and each reader has its own.
///
/// ```swift
/// let db = try Connection(path: "/tmp/x.db")
/// try db.execute("CREATE TABLE t(a)")
/// let insert = try db.prepare("INSERT INTO t VALUES (?1)")
/// ```
package final class Connection {
    /// How to open the file.
    package struct OpenFlags: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// Read only.
        package static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        /// Read and write.
        package static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        /// Create the file when it does not exist (with `readWrite`).
        package static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
    }

    /// How a transaction takes its lock.
    package enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    let handle: OpaquePointer
    /// Kept alive here because SQLite holds only a raw pointer to it.
    private var walHook: WALHookBox?
    /// The file name the connection was opened with.
    package let path: String

    /// Opens `path`; the file is not read until the first statement runs.
    ///
    /// `serialized` keeps SQLite's per-connection mutex, needed when several threads may use the
    /// connection (a reader and its cursors); a connection only one thread ever touches (the
    /// writer's) skips it.
    package init(path: String, flags: OpenFlags = [.readWrite, .create], serialized: Bool = true,
                 busyTimeoutMs: Int32 = 5_000) throws(LogError) {
        self.path = path
        var db: OpaquePointer?
        let threading = serialized ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags.rawValue | threading | SQLITE_OPEN_EXRESCODE, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw LogError(kind: code == SQLITE_CANTOPEN ? .fileNotFound : .sqlite, code: code, message: message, path: path)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
    }

    /// Whether SQLite opened the main database read-only (it does so silently when the file
    /// or its file system cannot be written).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    deinit {
        // v2 defers the close until every statement is finalized, so order never matters.
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that return no rows.
    package func execute(_ sql: String) throws(LogError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw error(code: code, message: message, sql: sql)
        }
    }

    /// Compiles one statement.
    package func prepare(_ sql: String) throws(LogError) -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw error(code: code, sql: sql)
        }
        return Statement(handle: statement, connection: self)
    }

    /// The first column of the first row of `sql`, as an integer (`nil` when no row or NULL).
    package func scalarInt(_ sql: String) throws(LogError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws(LogError) -> T) throws(LogError) -> T {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls back the open transaction, if any; never throws (the error that led here matters more).
    package func rollback() {
        if !isAutocommit { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// `false` while a transaction is open.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Copies what it can of the WAL into the main file without waiting for any lock (a PASSIVE
    /// checkpoint). Frames a reader still needs, or a busy database, only mean less is copied.
    package func checkpointWAL() {
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Calls `hook` with the WAL's size in frames after each commit, instead of SQLite's automatic
    /// checkpoint (a WAL hook replaces it). `nil` restores the automatic checkpoint.
    package func setWALHook(_ hook: ((Int32) -> Void)?) {
        walHook = hook.map(WALHookBox.init)
        guard let walHook else {
            sqlite3_wal_autocheckpoint(handle, 1_000)
            return
        }
        let context = Unmanaged.passUnretained(walHook).toOpaque()
        sqlite3_wal_hook(handle, { context, _, _, frames in
            Unmanaged<WALHookBox>.fromOpaque(context!).takeUnretainedValue().hook(frames)
            return SQLITE_OK
        }, context)
    }

    /// Runs `body` with a wall-clock budget: once `seconds` have passed, the statement running
    /// then (or the next one to step) stops with `SQLITE_INTERRUPT` (see
    /// ``LogError/isInterrupted``). SQLite checks every few thousand virtual-machine steps.
    package func withTimeBudget<T, E: Error>(seconds: Double, _ body: () throws(E) -> T) throws(E) -> T {
        let box = DeadlineBox(deadline: DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1e9))
        let context = Unmanaged.passUnretained(box).toOpaque()
        sqlite3_progress_handler(handle, 4_096, { context in
            let box = Unmanaged<DeadlineBox>.fromOpaque(context!).takeUnretainedValue()
            return DispatchTime.now().uptimeNanoseconds >= box.deadline ? 1 : 0
        }, context)
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            withExtendedLifetime(box) {}
        }
        return try body()
    }

    /// An error for `code`, with the connection's current message unless one is given.
    func error(code: Int32, message: String? = nil, sql: String?) -> LogError {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        let kind: LogError.Kind = code & 0xFF == SQLITE_NOTADB ? .notARewindLog : .sqlite
        return LogError(kind: kind, code: code, message: text, sql: sql, path: path)
    }
}

/// The deadline behind ``Connection/withTimeBudget(seconds:_:)``, boxed for SQLite's pointer.
private final class DeadlineBox {
    let deadline: UInt64
    init(deadline: UInt64) { self.deadline = deadline }
}

/// The closure behind ``Connection/setWALHook(_:)``, boxed so SQLite can carry a pointer to it.
private final class WALHookBox {
    let hook: (Int32) -> Void
    init(_ hook: @escaping (Int32) -> Void) { self.hook = hook }
}
