import Foundation
import RewindLog
import RewindSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared store's feed through LISTEN/NOTIFY: commits arrive on `rewind_events` (each writer
/// announces `session first last` in the transaction that stores them, so the notice is
/// delivered exactly when the rows are visible), messages between instances on `rewind_bus`.
///
/// Anyone who can log in to the database may NOTIFY, and may LISTEN, without any privilege on
/// Rewind's tables. So a message never travels in a notification: it is a row of the
/// `rewind_bus` table (which only Rewind's role may write or read), and the notification carries
/// its id. A receiver reads the row, takes each id once, and ignores a row older than a minute,
/// so a forged notification can at most name a message that was already sent, which is then
/// ignored. Rows older than ten minutes are deleted as new ones come. A `rewind_events` notice
/// is a hint that a session grew: ClusterLink pushes only what the log holds past what it pushed
/// before, so a forged one pushes nothing twice and nothing of an ended session.
///
/// One thread listens on a connection of its own and waits on its socket; a second connection
/// sends. When the listening connection breaks, the thread reconnects with a growing pause (up
/// to 2 s), listens again and delivers ``LogStoreNotice/reconnected``.
final class PostgresFeed: LogStoreFeed, @unchecked Sendable {
    private let url: PostgresURL
    private let sender: Mutex<PGConnection?>
    private let state = Condition((stopping: false, stopped: true))
    private var thread: Thread?

    /// Bus rows already handed on, newest last: each is taken once.
    private var seen: Set<Int64> = []
    private var seenOrder: [Int64] = []
    /// A message row older than this (seconds) is not taken.
    static let maxMessageAge = 60.0

    init(url: PostgresURL) {
        self.url = url
        sender = Mutex(nil)
    }

    func start(_ handler: @escaping @Sendable (LogStoreNotice) -> Void) throws(LogError) {
        let listener = try PGConnection(url: url, applicationName: "rewind-feed")
        try listener.execute("LISTEN \(PostgresWriterEngine.eventsChannel); LISTEN rewind_bus")
        listener.onReconnect = { connection throws(LogError) in
            try connection.execute("LISTEN \(PostgresWriterEngine.eventsChannel); LISTEN rewind_bus")
        }
        state.withLock { $0 = (false, false) }
        let thread = Thread { [self] in
            Thread.current.name = "rewind-pg-feed"
            listen(on: listener, handler)
            state.update { $0.stopped = true }
        }
        self.thread = thread
        thread.start()
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func listen(on connection: PGConnection, _ handler: @Sendable (LogStoreNotice) -> Void) {
        var pause = 0.05
        while !stopping {
            do throws(LogError) {
                let wasDown = !connection.isConnected
                try connection.ensureConnected()
                if wasDown { handler(.reconnected) }
                pause = 0.05
                var poller = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 200)
                for (channel, payload) in try connection.notifications() {
                    if channel == PostgresWriterEngine.eventsChannel {
                        let parts = payload.split(separator: " ").compactMap { Int64($0) }
                        if parts.count == 3 { handler(.events(session: parts[0], first: parts[1], last: parts[2])) }
                    } else if let id = Int64(payload), remember(id),
                              let message = try? connection.scalarText(
                                "SELECT payload FROM rewind_bus WHERE id = ?1 AND created_at >= extract(epoch FROM now()) - ?2",
                                [String(id), "\(Self.maxMessageAge)"]) {
                        handler(.message(message))
                    }
                }
            } catch {
                // The database is away: wait (stoppably) and try again.
                _ = state.wait(for: { $0.stopping }, deadline: MonotonicClock.nanoseconds() + Int64(pause * 1e9))
                pause = min(pause * 2, 2)
            }
        }
    }

    /// `true` the first time `id` comes (on the listening thread only); remembers the last 10,000.
    private func remember(_ id: Int64) -> Bool {
        guard seen.insert(id).inserted else { return false }
        seenOrder.append(id)
        if seenOrder.count > 10_000 {
            seen.remove(seenOrder.removeFirst())
        }
        return true
    }

    /// Runs `body` on the sending connection (opened on first use), under its lock.
    private func withSender<T>(_ body: (PGConnection) throws(LogError) -> T) throws(LogError) -> T {
        try sender.withLock { sender in
            Result { () throws(LogError) -> T in
                let connection: PGConnection
                if let open = sender { connection = open } else {
                    connection = try PGConnection(url: url, applicationName: "rewind-feed-send")
                    sender = connection
                }
                return try body(connection)
            }
        }.get()
    }

    func send(_ message: String) throws(LogError) {
        try withSender { connection throws(LogError) in
            _ = try connection.scalarText("DELETE FROM rewind_bus WHERE created_at < extract(epoch FROM now()) - 600")
            guard let id = try connection.scalarText("INSERT INTO rewind_bus(payload) VALUES (?1) RETURNING id", [message]) else { return }
            _ = try connection.scalarText("SELECT pg_notify('rewind_bus', ?1)", [id])
        }
    }

    func isLeased(session: Int64) throws(LogError) -> Bool {
        try withSender { connection throws(LogError) -> Bool in
            // A one-key advisory lock on a bigint shows its high half in classid, its low
            // half in objid, and objsubid 1.
            let count = try connection.scalarText("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND classid = oid(CAST(?1 AS bigint) >> 32) AND objid = oid(CAST(?1 AS bigint) & 4294967295)
                """, [String(session)])
            return count != "0"
        }
    }

    func leasedSessions() throws(LogError) -> Set<Int64> {
        try withSender { connection throws(LogError) -> Set<Int64> in
            let result = try connection.run("""
                SELECT (CAST(classid AS bigint) << 32) | CAST(objid AS bigint) FROM pg_locks
                WHERE locktype = 'advisory' AND objsubid = 1 AND granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """, [])
            defer { PQclearResult(result) }
            var sessions = Set<Int64>()
            if let rows = PGRowReader(result) {
                for row in 0..<rows.count { sessions.insert(rows.int64(row, 0)) }
            }
            return sessions
        }
    }

    func stop() {
        state.update { $0.stopping = true }
        if let thread, Thread.current !== thread {
            _ = state.wait(for: { $0.stopped })
        }
    }

    deinit {
        stop()
    }
}
