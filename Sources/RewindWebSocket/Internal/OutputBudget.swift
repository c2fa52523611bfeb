import CLibWebSockets
import Foundation
import RewindSupport

/// The bytes queued for sending across all of a server's connections, bounded by one cap.
///
/// A send that would pass the cap first evicts the connection holding the largest queue: its
/// queue is dropped at once and it is closed with 1008. So a few connections that stop reading
/// cannot hold the server's memory, and the one holding the most goes first.
final class OutputBudget: @unchecked Sendable {
    let limit: Int
    private struct State {
        var total = 0
        var cores: [UInt64: Weak] = [:]
        /// Bytes dropped by evictions since memory was last handed back to the system.
        var droppedSinceTrim = 0
        /// Message bytes taken for writing, and received, over the server's life (metrics).
        var sent: UInt64 = 0
        var received: UInt64 = 0
    }

    private let state = Mutex(State())

    private struct Weak { weak var core: ConnectionCore? }

    init(limit: Int) {
        self.limit = limit
    }

    var queuedBytes: Int { state.withLock { $0.total } }

    func register(_ core: ConnectionCore) {
        state.withLock { $0.cores[core.id] = Weak(core: core) }
    }

    func unregister(_ core: ConnectionCore) {
        state.withLock { _ = $0.cores.removeValue(forKey: core.id) }
    }

    /// Takes `bytes` from the budget, or returns false when that would pass the cap.
    func reserve(_ bytes: Int) -> Bool {
        state.withLock { state in
            guard bytes <= limit - state.total else { return false }
            state.total += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { $0.total -= bytes }
    }

    /// A message of `bytes` was taken for writing: released, and counted as sent.
    func sent(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.total -= bytes
            state.sent &+= UInt64(bytes)
        }
    }

    /// `bytes` of frames were read from a connection.
    func received(_ bytes: Int) {
        state.withLock { $0.received &+= UInt64(bytes) }
    }

    /// Message bytes sent and frame bytes received so far.
    var traffic: (received: UInt64, sent: UInt64) { state.withLock { ($0.received, $0.sent) } }

    /// Closes the connection with the largest queue (1008) and drops its queue. Returns false
    /// when no connection holds anything to drop. Called without any connection's lock held.
    func evictLargest() -> Bool {
        let candidates = state.withLock { $0.cores.values.compactMap(\.core) }
        var largest: (core: ConnectionCore, bytes: Int)?
        for core in candidates {
            let bytes = core.queuedByteCount
            if bytes > (largest?.bytes ?? 0) { largest = (core, bytes) }
        }
        guard let (core, _) = largest else { return false }
        let dropped = core.evict(reason: "the server's output memory is full and this connection holds the most unsent output")
        guard dropped > 0 else { return false }
        trimIfWorthwhile(after: dropped)
        return true
    }

    /// Hands freed heap back to the system once evictions have dropped a lot: glibc keeps freed
    /// large blocks mapped otherwise, and RSS would stay high after the connections are gone.
    private func trimIfWorthwhile(after dropped: Int) {
        let trim = state.withLock { state -> Bool in
            state.droppedSinceTrim += dropped
            guard state.droppedSinceTrim >= 16 << 20 else { return false }
            state.droppedSinceTrim = 0
            return true
        }
        if trim { rewind_release_free_memory() }
    }
}
