import Foundation
import RewindJSON

/// The one writer of a log file: its own thread, its own connection, group commits.
///
/// ``append(_:completion:)`` encodes the events on the caller's thread and enqueues them; it
/// never waits for I/O. The writer thread validates each batch (seqs must continue their session
/// without gaps or duplicates), writes it into the open transaction and commits every
/// ``Options/commitInterval`` or ``Options/maxEventsPerCommit`` events. A batch is stored whole
/// or not at all, and a bad batch never takes another caller's batch down. Completions run on
/// the writer thread once their batch is committed (a refused batch's at once): keep them short.
/// The writer's synchronous methods (`flush`, `openSession`…) throw when called from one, since
/// they would wait for the very thread that runs the completion.
///
/// A second thread does the WAL checkpoints (see `Docs/LogFormat.md`), so no commit waits for one.
///
/// ```swift
/// let writer = try LogWriter(path: "/tmp/rewind.db")
/// let id = try writer.openSession(uuid: UUID().uuidString, app: "Todo", startedAt: Date())
/// writer.append([event0, event1]) { result in print(result) }
/// try writer.flush()   // everything appended before is committed
/// writer.close()
/// ```
public final class LogWriter: Sendable {
    /// How the writer batches its commits.
    public struct Options: Sendable {
        /// The longest an appended event waits before its transaction commits, in seconds.
        public var commitInterval: Double
        /// A transaction commits as soon as it holds this many events.
        public var maxEventsPerCommit: Int
        /// The longest a committed event waits before it is in the full-text index, in seconds,
        /// while the writer runs: text search (`LogReader.events(…, text:)`, `rewind log --grep`)
        /// can miss an event for that long after it is committed. The index is filled in a
        /// transaction of its own, so commits (and the acks and live events that follow them)
        /// never wait for it. Events a writer committed but did not index before it stopped (a
        /// crash) are indexed when the next writer opens the file.
        public var indexInterval: Double
        /// Whether a thread of the writer's copies the WAL into the main file as it grows
        /// (checkpoints), so that commits rarely wait for one. Tests turn it off to check that
        /// the writer alone keeps the WAL bounded.
        package var checkpointsInBackground = true

        /// The house plan's figures: 20 ms or 1,000 events; the index follows within 100 ms.
        public init(commitInterval: Double = 0.020, maxEventsPerCommit: Int = 1_000, indexInterval: Double = 0.100) {
            self.commitInterval = commitInterval
            self.maxEventsPerCommit = maxEventsPerCommit
            self.indexInterval = indexInterval
        }
    }

    /// The log file.
    public let path: String
    private let queue: WriterQueue

    /// Opens (or creates) the log at `path` and starts the writer thread.
    ///
    /// Throws when the file is not a Rewind log or was written by a newer Rewind.
    public init(path: String, options: Options = Options()) throws(LogError) {
        self.path = path
        // One writer per log (WriterLock): refused here, before anything is opened.
        let lock = try WriterLock.acquire(for: path)
        let queue = WriterQueue(wakeThreshold: options.maxEventsPerCommit)
        self.queue = queue
        let opened = CallResult<Bool>()
        let thread = Thread {
            Thread.current.name = "rewind-writer"  // from inside, so that the system sees it
            queue.registerWriterThread()
            do throws(LogError) {
                let engine = try WriterEngine(path: path, options: options, queue: queue)
                opened.fulfil(.success(true))
                WriterEngine.run(engine)
            } catch {
                opened.fulfil(.failure(error))
            }
            // The engine and its connection are gone by now: the file is closed, and the next
            // writer may take the log.
            lock?.release()
            queue.markFinished()
        }
        thread.start()
        if case .failure(let error) = opened.wait() {
            queue.waitUntilFinished()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Records a new session and returns its id; an existing session with the same `uuid` (an app
    /// reconnecting) keeps its id. Durable when it returns.
    ///
    /// - Parameter run: the run the session belongs to: the sessions one process started share it.
    /// - Parameter hashVersion: which state hash the session's events carry; a session continued
    ///   with another one is refused (``LogError/Kind/hashVersionMismatch(session:stored:requested:)``).
    /// - Parameter owner: the app that started the session (``SessionOwner``): given when the
    ///   session is new, it is stored; given for a session that has one, it must be the same
    ///   (``LogError/Kind/notOwner(session:)``), and nothing else is checked or told before.
    public func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue = [:],
                            replayOf: String? = nil, run: String? = nil,
                            hashVersion: StateHashVersion = .v1, owner: SessionOwner? = nil) throws(LogError) -> Int64 {
        let metaText = meta.serialized(.compact)
        return try call { engine throws(LogError) in
            try engine.openSession(uuid: uuid, app: app, startedAt: startedAt, meta: metaText, replayOf: replayOf, run: run,
                                   hashVersion: hashVersion, owner: owner)
        }
    }

    /// The secret this log keeps for session `id` (a log on the app's device), if any.
    public func secret(session id: Int64) throws(LogError) -> String? {
        try call { engine throws(LogError) in try engine.secret(session: id) }
    }

    /// Enqueues one batch of events; `completion` (on the writer thread) says whether it was
    /// committed. The batch is all-or-nothing: each event must continue its session's seqs.
    public func append(_ events: [LogEvent], completion: (@Sendable (Result<Void, LogError>) -> Void)? = nil) {
        let batch: PendingBatch
        do throws(LogError) {
            var encoded: [EncodedEvent] = []
            encoded.reserveCapacity(events.count)
            for event in events { encoded.append(try EncodedEvent(event)) }
            batch = PendingBatch(events: encoded, completion: completion)
        } catch {
            var error = error
            error.path = path
            completion?(.failure(error))
            return
        }
        if !queue.push(.append(batch)) {
            completion?(.failure(LogError(kind: .closed, message: "", path: path)))
        }
    }

    /// Returns once everything appended before the call is committed to the file (visible to
    /// every new reader; with `synchronous=NORMAL` a power loss may still lose the last commits)
    /// and in the full-text index.
    public func flush() throws(LogError) {
        try call { engine throws(LogError) in try engine.indexCommitted() }
    }

    /// Returns once everything appended before the call is committed, without waiting for the
    /// full-text index (which follows within ``Options/indexInterval``).
    public func commit() throws(LogError) {
        try call { _ in }
    }

    /// How far the full-text index reaches: the highest event rowid committed and the highest
    /// indexed (for tests and benchmarks).
    package func indexProgress() throws(LogError) -> (committed: Int64, indexed: Int64) {
        try call { engine in (engine.committedThrough, engine.indexedThrough) }
    }

    /// Runs `body` on the writer thread against the file, after what is pending is committed
    /// (``LogStoreWriter``'s forwarded operations).
    public func onWriterThread<T: Sendable>(_ body: @escaping @Sendable (any LogStoreOperations) throws(LogError) -> T) throws(LogError) -> T {
        try call { engine throws(LogError) in try body(engine) }
    }

    /// Commits what is pending, stops the thread and closes the file. Appends after it fail with
    /// ``LogError/Kind/closed``. Calling it again does nothing.
    public func close() {
        _ = queue.push(.stop)
        // From a completion (the writer thread itself) waiting would never end; the thread stops
        // once the completion returns.
        if !queue.isWriterThread { queue.waitUntilFinished() }
    }

    /// Records that `server` holds `session` through `seq` (store and forward: the events after
    /// it are still to be delivered). For the same server the highest seq recorded stays; a mark
    /// from another server replaces the row (a recorder with several servers moved, and the new
    /// one may hold less). `-1` marks the session as meant for `server` before anything is
    /// acknowledged. Durable when it returns.
    public func markDelivered(session: Int64, server: String, through seq: Int64) throws(LogError) {
        try call { engine throws(LogError) in
            try engine.markDelivered(session: session, server: server, through: seq)
        }
    }

    /// Caps the log file at `pages` pages (SQLite's `max_page_count`; `nil` lifts the cap), so
    /// that tests meet a full disk as SQLite reports one (`SQLITE_FULL`) without filling one.
    /// Returns the file's page count when the cap was set.
    @discardableResult
    package func limitPages(_ pages: Int?) throws(LogError) -> Int {
        try call { engine throws(LogError) in try engine.limitPages(pages) }
    }

    /// How many transactions the writer has committed (for tests and benchmarks).
    package var commitCount: Int { queue.commitCount }

    /// Runs `body` on the writer thread after committing what is pending, and waits for it.
    func call<T: Sendable>(_ body: @escaping @Sendable (WriterEngine) throws(LogError) -> T) throws(LogError) -> T {
        let result = CallResult<T>()
        let job = WriterQueue.Job.call { engine in
            result.fulfil(Result { () throws(LogError) in try body(engine) })
        }
        guard !queue.isWriterThread else {
            throw LogError(kind: .calledFromWriterThread, message: "", path: path)
        }
        guard queue.push(job) else { throw LogError(kind: .closed, message: "", path: path) }
        return try result.wait().get()
    }
}
