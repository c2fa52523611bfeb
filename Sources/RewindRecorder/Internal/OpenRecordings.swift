import Foundation
import RewindSupport

/// Every recording still open in this process, so that one that exits (returns from `main` or
/// calls `exit()`) without stopping them loses nothing: an exit hook writes what is queued, ends
/// each session, and waits a bounded time for servers to have their sessions' ends.
final class OpenRecordings: Sendable {
    static let shared = OpenRecordings()

    /// How long the exit hook waits, in all, for servers to acknowledge and take `end`.
    static let exitWait: Double = 2
    /// How long it waits, in all, for the recorders to write what is queued and end their
    /// sessions (a log file commits in milliseconds; the bound keeps a stuck sink from holding
    /// the process's exit).
    static let stopWait: Double = 5

    private struct Entry {
        /// Asks the recorder to write what is queued and end the session in every sink; the
        /// semaphore is signalled when it has (`nil` when it already stopped).
        let stop: @Sendable () -> DispatchSemaphore?
        let sinks: [any RecordingSink]
    }

    private struct Open {
        var entries: [String: Entry] = [:]
        var hookInstalled = false
    }

    private let open = Mutex(Open())

    /// Registers an open recording (by session uuid) and installs the exit hook once.
    func add(session: String, sinks: [any RecordingSink], stop: @escaping @Sendable () -> DispatchSemaphore?) {
        let install = open.withLock { open in
            open.entries[session] = Entry(stop: stop, sinks: sinks)
            defer { open.hookInstalled = true }
            return !open.hookInstalled
        }
        if install { atexit { OpenRecordings.shared.finishAll() } }
    }

    /// The recording's thread has ended.
    func remove(session: String) {
        // Its sinks may go with it, and a log's sink closes the file as it goes: after the lock.
        _ = open.withLock { $0.entries.removeValue(forKey: session) }
    }

    /// Ends every open recording: what is queued is written (committed, for a log file), each
    /// session is ended, and server sinks get up to ``exitWait`` seconds in all to deliver.
    func finishAll() {
        let open = self.open.withLock { Array($0.entries.values) }
        guard !open.isEmpty else { return }
        // All stop at once; each is waited for within one bound.
        let stopping = open.compactMap { $0.stop() }
        let stopDeadline = Deadline.after(.seconds(Self.stopWait))
        for semaphore in stopping { _ = semaphore.wait(timeout: stopDeadline.dispatchTime) }
        let deadline = Deadline.after(.seconds(Self.exitWait))
        var seen = Set<ObjectIdentifier>()
        for entry in open {
            for case let server as ServerSink in entry.sinks where seen.insert(ObjectIdentifier(server)).inserted {
                _ = server.waitUntilEnded(timeout: deadline.remaining)
            }
        }
    }
}
