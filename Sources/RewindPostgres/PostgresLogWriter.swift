import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// The team store's writer: its own thread and connection, group commits through `COPY`, and a
/// lease on every session it writes.
///
/// ``append(_:completion:)`` encodes on the caller's thread and enqueues; the thread validates
/// each batch against the seqs it knows for its leased sessions, writes every valid batch of a
/// commit window (``LogWriter/Options/commitInterval`` or ``LogWriter/Options/maxEventsPerCommit``
/// events) in one transaction, announces each session's new seq range on the `rewind_events`
/// channel (delivered at commit) and runs the completions once committed.
///
/// A session is written by one instance at a time: ``openSession(uuid:app:startedAt:meta:replayOf:run:hashVersion:owner:)``
/// takes the session's advisory lock (`pg_try_advisory_lock(id)`) on this writer's connection and
/// refuses with ``LogError/Kind/sessionLeased(session:)`` when another holds it. PostgreSQL frees
/// the lock when the connection ends, so after a `kill -9` of an instance its sessions can move
/// to another at once. When the database goes away, appends fail with
/// ``LogError/Kind/unreachable`` (nothing of them is stored, so the app keeps them), and the
/// writer reconnects on its next job, taking its leases back.
public final class PostgresLogWriter: LogStoreWriter, @unchecked Sendable {
    public let path: String
    private let jobs = Condition(Jobs())
    private let thread: Thread?
    private let options: LogWriter.Options

    struct PendingAppend {
        var events: [EncodedEvent]
        var completion: (@Sendable (Result<Void, LogError>) -> Void)?
    }

    enum Job {
        case append(PendingAppend)
        case call((PostgresWriterEngine) -> Void)
        case stop
    }

    struct Jobs {
        var queue: [Job] = []
        var queuedEvents = 0
        var accepting = true
        var finished = false
    }

    /// Connects to `url`, migrates the schema and starts the writer thread.
    public init(url: String, options: LogWriter.Options = LogWriter.Options()) throws(LogError) {
        let parsed = try PostgresURL(url)
        path = parsed.redacted
        self.options = options
        let connection = try PGConnection(url: parsed, applicationName: "rewind-writer")
        try PostgresSchema.migrate(connection)
        let engine = PostgresWriterEngine(connection: connection)
        let jobs = self.jobs
        let options = self.options
        let thread = Thread {
            // At most 15 characters: Linux refuses a longer thread name, and the thread would show
            // as "rewind" in /proc and in debuggers.
            Thread.current.name = "rewind-pgwriter"
            PostgresLogWriter.run(engine, jobs: jobs, options: options)
        }
        self.thread = thread
        thread.start()
    }

    deinit {
        close()
    }

    // MARK: LogStoreWriter

    public func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue, replayOf: String?, run: String?,
                            hashVersion: StateHashVersion, owner: SessionOwner?) throws(LogError) -> Int64 {
        try call { engine throws(LogError) in
            try engine.openSession(uuid: uuid, app: app, startedAt: startedAt, meta: meta, replayOf: replayOf, run: run,
                                   hashVersion: hashVersion, owner: owner)
        }
    }

    public func append(_ events: [LogEvent], completion: (@Sendable (Result<Void, LogError>) -> Void)?) {
        var encoded: [EncodedEvent] = []
        encoded.reserveCapacity(events.count)
        do throws(LogError) {
            for event in events { encoded.append(try EncodedEvent(event)) }
        } catch {
            var error = error
            error.path = path
            completion?(.failure(error))
            return
        }
        let count = encoded.count
        let accepted = jobs.update(waking: .one) { jobs -> Bool in
            guard jobs.accepting else { return false }
            jobs.queue.append(.append(PendingAppend(events: encoded, completion: completion)))
            jobs.queuedEvents += count
            return true
        }
        if !accepted { completion?(.failure(LogError(kind: .closed, message: "", path: path))) }
    }

    public func flush() throws(LogError) {
        try call { _ in }
    }

    public func commit() throws(LogError) {
        try call { _ in }
    }

    public func onWriterThread<T: Sendable>(_ body: @escaping @Sendable (any LogStoreOperations) throws(LogError) -> T) throws(LogError) -> T {
        try call { engine throws(LogError) in try body(engine) }
    }

    /// Gives the lease up after everything appended before is committed, without waiting (the
    /// server calls it on its ingest queue when an app goes away).
    public func release(session: Int64) {
        jobs.update(waking: .one) { jobs in
            guard jobs.accepting else { return }
            jobs.queue.append(.call { engine in engine.release(session: session) })
        }
    }

    public var isShared: Bool { true }

    public func close() {
        let pushed = jobs.update(waking: .one) { jobs -> Bool in
            guard jobs.accepting else { return false }
            jobs.accepting = false
            jobs.queue.append(.stop)
            return true
        }
        _ = pushed
        if Thread.current !== thread {
            _ = jobs.wait(for: { $0.finished })
        }
    }

    /// The sessions this writer holds the lease of (for tests).
    package func leasedSessions() throws(LogError) -> [Int64] {
        try call { engine in engine.leased.sorted() }
    }

    // MARK: The thread

    /// Runs `body` on the writer thread after everything queued before it, and returns its result.
    private func call<T: Sendable>(_ body: @escaping (PostgresWriterEngine) throws(LogError) -> T) throws(LogError) -> T {
        guard Thread.current !== thread else {
            throw LogError(kind: .calledFromWriterThread, message: "", path: path)
        }
        let box = Condition<Result<T, LogError>?>(nil)
        let accepted = jobs.update(waking: .one) { jobs -> Bool in
            guard jobs.accepting else { return false }
            jobs.queue.append(.call { engine in
                let result = Result { () throws(LogError) -> T in try body(engine) }
                box.update { $0 = result }
            })
            return true
        }
        guard accepted else { throw LogError(kind: .closed, message: "", path: path) }
        _ = box.wait(for: { $0 != nil })
        return try box.withLock { $0! }.get()
    }

    /// The most bytes of event text one commit window gathers (a larger event goes alone).
    static let maxWindowBytes = 64 << 20

    private static func run(_ engine: PostgresWriterEngine, jobs: Condition<Jobs>, options: LogWriter.Options) {
        var pending: [PendingAppend] = []
        var windowStart: Double?
        var pendingEvents = 0
        var pendingBytes = 0
        func commitPending() {
            guard !pending.isEmpty else { return }
            engine.write(pending)
            pending = []
            pendingEvents = 0
            pendingBytes = 0
            windowStart = nil
        }
        while true {
            // Wait for work; while appends wait for their window, only a call, a full window or
            // the deadline ends the wait.
            let deadline = windowStart.map { Int64(($0 + options.commitInterval) * 1e9) }
            let threshold = options.maxEventsPerCommit - pendingEvents
            var taken: [Job] = []
            if let deadline {
                _ = jobs.wait(for: { jobs in
                    jobs.queuedEvents >= threshold || jobs.queue.contains { if case .append = $0 { return false } else { return true } }
                }, deadline: deadline)
                taken = jobs.withLock { jobs in
                    defer { jobs.queue = []; jobs.queuedEvents = 0 }
                    return jobs.queue
                }
            } else {
                taken = jobs.withLock(when: { !$0.queue.isEmpty }) { jobs in
                    defer { jobs.queue = []; jobs.queuedEvents = 0 }
                    return jobs.queue
                } ?? []
            }
            for job in taken {
                switch job {
                case .append(let batch):
                    pending.append(batch)
                    pendingEvents += batch.events.count
                    pendingBytes += batch.events.reduce(0) { $0 + $1.action.count + $1.patch.count + $1.inverse.count + ($1.keyframe?.count ?? 0) }
                    if windowStart == nil { windowStart = MonotonicClock.seconds() }
                    // A window ends at its event count or at 64 MiB of text, so one COPY stays
                    // far below what libpq and the server take in one go.
                    if pendingEvents >= options.maxEventsPerCommit || pendingBytes >= Self.maxWindowBytes { commitPending() }
                case .call(let body):
                    // A call sees everything appended before it committed.
                    commitPending()
                    body(engine)
                case .stop:
                    commitPending()
                    engine.close()
                    jobs.update { $0.finished = true }
                    return
                }
            }
            if let start = windowStart, MonotonicClock.seconds() >= start + options.commitInterval { commitPending() }
        }
    }
}
