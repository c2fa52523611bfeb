import Foundation
import RewindSupport

/// The one thread that makes every libwebsockets call for a server or a client.
///
/// Its identity is held only while it runs: a `pthread_t` names a thread only until that thread
/// ends, and glibc hands the same value to the next thread it starts (the freed stack is reused,
/// and the value is the stack's address). So the thread forgets its `pthread_t` before it
/// returns, under the same lock ``isCurrent`` reads it with: a later thread that happens to get
/// the same value is never taken for this one.
final class ServiceThread: @unchecked Sendable {
    private struct State {
        var started = false
        var finished = false
        /// The running thread; `nil` before it starts and once its body has returned.
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
            // Still running here, so no other thread can hold this `pthread_t` yet.
            state.update(waking: .all) { state in
                state.thread = nil
                state.finished = true
            }
        }
        thread.start()
        return true
    }

    /// Whether the caller is running on this service thread: `false` before it starts and after
    /// it has ended, whichever thread asks.
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
