import Foundation
import RewindJSON

/// Where a log lives: the embedded SQLite file (``SQLiteLogStore``, the default) or a team's
/// PostgreSQL database (RewindPostgres's `PostgresLogStore`). The replay engine, the server and
/// the command line take a store and never ask which one it is: a store opens readers
/// (``LogReader``, one class over either) and writers (``LogStoreWriter``).
public protocol LogStore: Sendable {
    /// The file's path, or the database's URL without its password: what errors name.
    var location: String { get }
    /// Opens a reader of the log; throws when there is no such log.
    func openReader() throws(LogError) -> LogReader
    /// Opens the log's writer, creating the log (and migrating it) when needed.
    func openWriter(options: LogWriter.Options) throws(LogError) -> any LogStoreWriter
    /// Whether several writers (processes) may write this log at once, each session by one at
    /// a time: a team store; the SQLite file takes one writer.
    var isShared: Bool { get }
    /// What a shared store tells every server on it (the SQLite file has no feed: `nil`).
    func openFeed() throws(LogError) -> (any LogStoreFeed)?
}

/// A notice from a shared store to every `rewind serve` on it.
public enum LogStoreNotice: Sendable, Equatable {
    /// A writer (any instance) committed seqs `first...last` of `session`.
    case events(session: Int64, first: Int64, last: Int64)
    /// A message one instance sent every other (``LogStoreFeed/send(_:)``).
    case message(String)
    /// The feed was cut off and is back: notices in between are lost (a reader re-reads).
    case reconnected
}

/// The channel between the servers of a shared store: commit notices and messages (commands
/// for an app connected elsewhere, their replies, session changes).
public protocol LogStoreFeed: AnyObject, Sendable {
    /// Starts delivering notices to `handler`, on the feed's own thread, in the order committed.
    func start(_ handler: @escaping @Sendable (LogStoreNotice) -> Void) throws(LogError)
    /// Sends `message` to every server on the store (this one included).
    func send(_ message: String) throws(LogError)
    /// Whether some writer holds `session`'s lease now (an app streams it to some instance).
    func isLeased(session: Int64) throws(LogError) -> Bool
    /// Every session whose lease some writer holds now.
    func leasedSessions() throws(LogError) -> Set<Int64>
    /// Stops the feed's thread; no notice is delivered after it returns.
    func stop()
}

extension LogStore {
    public func openFeed() throws(LogError) -> (any LogStoreFeed)? { nil }

    /// Opens the log's writer with the default options.
    public func openWriter() throws(LogError) -> any LogStoreWriter {
        try openWriter(options: LogWriter.Options())
    }
}

/// The writing side of a log, as ``LogWriter`` does it for a file: sessions, batches appended
/// off the caller's thread and committed in groups, completions once durable, prune.
public protocol LogStoreWriter: AnyObject, Sendable {
    /// The log's location (a file's path, a database's URL without its password).
    var path: String { get }
    /// Records a new session and returns its id; an existing session with the same `uuid` keeps
    /// its id (an app reconnecting). Durable when it returns. On a shared store this writer
    /// then holds the session's lease until ``release(session:)`` or ``close()``.
    /// `owner`, when given, is checked against the session's (``SessionOwner``) before anything
    /// else, and stored with a new session.
    func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue, replayOf: String?, run: String?,
                     hashVersion: StateHashVersion, owner: SessionOwner?) throws(LogError) -> Int64
    /// Enqueues one batch; `completion` says whether it was committed (all of it or none).
    func append(_ events: [LogEvent], completion: (@Sendable (Result<Void, LogError>) -> Void)?)
    /// Returns once everything appended before is committed and searchable.
    func flush() throws(LogError)
    /// Returns once everything appended before is committed.
    func commit() throws(LogError)
    /// Runs `body` on the writer's own thread, against its store, once what was appended before
    /// is committed, and returns what it returns: the operations every writer forwards alike
    /// (``endSession(id:at:)``, ``nextSeq(session:)``, ``prune(sessions:)``,
    /// ``prune(olderThanDays:now:)``, ``sessionID(uuid:)``) go through it, once, below.
    func onWriterThread<T: Sendable>(_ body: @escaping @Sendable (any LogStoreOperations) throws(LogError) -> T) throws(LogError) -> T
    /// Gives up writing `session` (its app went away): another writer of a shared store may take
    /// it. The SQLite file's single writer has nothing to give up.
    func release(session: Int64)
    /// Commits what is pending and stops the writer. Calling it again does nothing.
    func close()
}

extension LogStoreWriter {
    /// ``openSession(uuid:app:startedAt:meta:replayOf:run:hashVersion:owner:)`` with its defaults.
    public func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue = [:], replayOf: String? = nil,
                            run: String? = nil) throws(LogError) -> Int64 {
        try openSession(uuid: uuid, app: app, startedAt: startedAt, meta: meta, replayOf: replayOf, run: run, hashVersion: .v1, owner: nil)
    }

    /// ``openSession(uuid:app:startedAt:meta:replayOf:run:hashVersion:owner:)`` for a session no
    /// app owns (an import, a test).
    public func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue, replayOf: String?, run: String?,
                            hashVersion: StateHashVersion) throws(LogError) -> Int64 {
        try openSession(uuid: uuid, app: app, startedAt: startedAt, meta: meta, replayOf: replayOf, run: run, hashVersion: hashVersion, owner: nil)
    }

    /// ``append(_:completion:)`` without a completion.
    public func append(_ events: [LogEvent]) {
        append(events, completion: nil)
    }

    /// ``prune(olderThanDays:now:)`` from now.
    @discardableResult
    public func prune(olderThanDays days: Double) throws(LogError) -> [Int64] {
        try prune(olderThanDays: days, now: Date())
    }
}

/// The embedded log: one SQLite file.
public struct SQLiteLogStore: LogStore {
    /// The file.
    public let path: String

    /// The store at `path` (not opened until a reader or writer is).
    public init(path: String) {
        self.path = path
    }

    public var location: String { path }
    public var isShared: Bool { false }

    /// Whether a writer (`rewind serve`, a recording app, an import) holds the file now: while
    /// none does, no app can be streaming any of its sessions.
    public var hasWriter: Bool { WriterLock.isHeld(for: path) }

    public func openReader() throws(LogError) -> LogReader {
        try LogReader(path: path)
    }

    public func openWriter(options: LogWriter.Options) throws(LogError) -> any LogStoreWriter {
        try LogWriter(path: path, options: options)
    }
}

extension LogWriter: LogStoreWriter {
    public func release(session: Int64) {}
}

/// What a writer's thread does for the operations every writer forwards alike: each store's
/// engine (the SQLite file's, PostgreSQL's) in its own way, on that thread only.
public protocol LogStoreOperations: AnyObject {
    /// Records when a session ended.
    func endSession(id: Int64, at endedAt: Date) throws(LogError)
    /// The seq the session expects next.
    func expectedSeq(session: Int64) throws(LogError) -> Int64
    /// Removes whole sessions (events, keyframes, index entries) in one transaction; the ids removed.
    func prune(sessions ids: [Int64]) throws(LogError) -> [Int64]
    /// Removes the sessions whose last activity is before `cutoff` (seconds since 1970).
    func prune(inactiveBefore cutoff: Double) throws(LogError) -> [Int64]
    /// The id of the session with `uuid`, if the store holds it.
    func sessionID(uuid: String) throws(LogError) -> Int64?
}

extension LogStoreWriter {
    /// Records when a session ended.
    public func endSession(id: Int64, at endedAt: Date) throws(LogError) {
        try onWriterThread { store throws(LogError) in try store.endSession(id: id, at: endedAt) }
    }

    /// The seq the session expects next: what the server tells an app it has stored.
    public func nextSeq(session: Int64) throws(LogError) -> Int64 {
        try onWriterThread { store throws(LogError) in try store.expectedSeq(session: session) }
    }

    /// Removes whole sessions (their events, keyframes and index entries) in one transaction;
    /// returns the ids that were removed (unknown ids are skipped).
    @discardableResult
    public func prune(sessions ids: [Int64]) throws(LogError) -> [Int64] {
        try onWriterThread { store throws(LogError) in try store.prune(sessions: ids) }
    }

    /// Removes the sessions whose last activity (end, last event or start) is older than `days`
    /// days before `now`; returns the ids removed.
    @discardableResult
    public func prune(olderThanDays days: Double, now: Date = Date()) throws(LogError) -> [Int64] {
        let cutoff = now.timeIntervalSince1970 - days * 86_400
        return try onWriterThread { store throws(LogError) in try store.prune(inactiveBefore: cutoff) }
    }

    /// The id of the session with `uuid`, if the log holds it.
    public func sessionID(uuid: String) throws(LogError) -> Int64? {
        try onWriterThread { store throws(LogError) in try store.sessionID(uuid: uuid) }
    }
}
