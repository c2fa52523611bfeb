import Foundation

/// Every recording still open in this process, so that one that exits (returns from `main` or
/// calls `exit()`) without stopping them loses nothing: an exit hook writes what is queued, ends
/// each session, and waits a bounded time for servers to have their sessions' ends.
final class OpenRecordings: @unchecked Sendable {
    static let shared = OpenRecordings()

    /// How long the exit hook waits, in all, for servers to acknowledge and take `end`.
    static let exitWait: Double = 2

    private struct Entry {
        /// Writes what is queued, ends the session in every sink, and returns when done.
        let stop: @Sendable () -> Void
        let sinks: [any RecordingSink]
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var hookInstalled = false

    /// Registers an open recording (by session uuid) and installs the exit hook once.
    func add(session: String, sinks: [any RecordingSink], stop: @escaping @Sendable () -> Void) {
        let install = lock.withLock {
            entries[session] = Entry(stop: stop, sinks: sinks)
            defer { hookInstalled = true }
            return !hookInstalled
        }
        if install { atexit { OpenRecordings.shared.finishAll() } }
    }

    /// The recording's thread has ended.
    func remove(session: String) {
        lock.withLock { _ = entries.removeValue(forKey: session) }
    }

    /// Ends every open recording: what is queued is written (committed, for a log file), each
    /// session is ended, and server sinks get up to ``exitWait`` seconds in all to deliver.
    func finishAll() {
        let open = lock.withLock { Array(entries.values) }
        guard !open.isEmpty else { return }
        for entry in open { entry.stop() }
        let deadline = Date(timeIntervalSinceNow: Self.exitWait)
        var seen = Set<ObjectIdentifier>()
        for entry in open {
            for case let server as ServerSink in entry.sinks where seen.insert(ObjectIdentifier(server)).inserted {
                let remaining = max(0, deadline.timeIntervalSinceNow)
                _ = server.waitUntilEnded(timeout: .milliseconds(Int64(remaining * 1000)))
            }
        }
    }
}
