import Foundation
import RewindSupport

/// The one thread that makes every libwebsockets call for a server or a client.
final class ServiceThread: @unchecked Sendable {
    private struct State {
        var started = false
        var finished = false
        var thread: pthread_t?
    }

    private let state = Condition(State())

    /// Starts `body` on a new thread named `name`; returns `false` when already started.
    func start(name: String, body: @escaping @Sendable () -> Void) -> Bool {
        let first = state.withLock { state -> Bool in
            if state.started { return false }
            state.started = true
            return true
        }
        guard first else { return false }
        let thread = Thread { [state] in
            // Named from inside: on Linux, Foundation applies a name set before start to the
            // Thread object only, so `top -H` and `perf` would show the process' name.
            Thread.current.name = name
            state.withLock { $0.thread = pthread_self() }
            body()
            state.update(waking: .all) { $0.finished = true }
        }
        thread.start()
        return true
    }

    /// Whether the caller is running on this service thread.
    var isCurrent: Bool {
        let me = pthread_self()
        return state.withLock { state in state.thread.map { pthread_equal($0, me) != 0 } ?? false }
    }

    /// Whether the thread ran and returned.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Waits until the thread has returned (or never started), or until `deadline`
    /// (``MonotonicClock`` nanoseconds).
    @discardableResult
    func join(until deadline: Int64? = nil) -> Bool {
        state.wait(for: { !$0.started || $0.finished }, deadline: deadline)
    }
}
