import CLibWebSockets
import RewindSupport

/// How other threads reach the service thread: they queue a connection that has output or a
/// close request, then interrupt the service wait with `lws_cancel_service` — the one lws call
/// allowed off the service thread. `LWS_CALLBACK_EVENT_WAIT_CANCELLED` then takes the queue.
final class ServiceWaker: @unchecked Sendable {
    private struct State {
        var context: OpaquePointer?
        var pending: [ConnectionCore] = []
    }

    private let state = Mutex(State())

    /// Lets wake-ups through to `context` (service thread, once the context exists). Connections
    /// queued before (a client sending before it connects) are looked at on the first service pass.
    func attach(_ context: OpaquePointer) {
        state.withLock { state in
            state.context = context
            if !state.pending.isEmpty { lws_cancel_service(context) }
        }
    }

    /// Stops wake-ups before the context is destroyed (service thread). Holding the lock while
    /// cancelling means no other thread is inside `lws_cancel_service` once this returns.
    func detach() {
        state.withLock {
            $0.context = nil
            $0.pending.removeAll()
        }
    }

    /// Queues `core` for the service thread and interrupts its wait. Only the first connection
    /// queued since the service thread last took them interrupts it: that one wake-up takes them
    /// all (ten inspectors sent the same event cost one system call, not ten).
    func wake(_ core: ConnectionCore) {
        state.withLock { state in
            let first = state.pending.isEmpty
            state.pending.append(core)
            if first, let context = state.context { lws_cancel_service(context) }
        }
    }

    /// Interrupts the service wait so it looks at its control state.
    func wake() {
        state.withLock { state in
            if let context = state.context { lws_cancel_service(context) }
        }
    }

    /// The connections queued since the last call (service thread).
    func takePending() -> [ConnectionCore] {
        state.withLock { state in
            let pending = state.pending
            state.pending.removeAll(keepingCapacity: true)
            return pending
        }
    }
}
