import RewindSupport
import RewindWire
import RewindWebSocket

/// Sends cumulative acks: the writer's completions report each durable seq, and the ack goes out
/// from the completion's own thread (one per commit, which covers a batch), with no hop to
/// another thread: at a few thousand events a second, each hop was a wake-up of its own.
final class AckSender: @unchecked Sendable {
    private struct State {
        var durable: Int64
        var connection: WebSocketConnection
    }

    private let state: Mutex<State>

    init(connection: WebSocketConnection, durable: Int64) {
        state = Mutex(State(durable: durable, connection: connection))
    }

    /// The highest seq known to be durable (-1 when none).
    var durable: Int64 { state.withLock { $0.durable } }

    /// `seq` (and everything before it) is committed.
    func committed(_ seq: Int64) {
        // Under the lock, so that two threads' acks reach the connection in order.
        state.withLock { state in
            state.durable = max(state.durable, seq)
            guard state.durable >= 0 else { return }
            _ = state.connection.send(textBytes: ServerToApp.ack(seq: state.durable).json.serializedBytes(.compact))
        }
    }

    /// Sends the current ack again (to a connection that resent events already stored).
    func resend() {
        committed(-1)
    }

    /// Acks from now on go to `connection`.
    func rebind(_ connection: WebSocketConnection) {
        state.withLock { $0.connection = connection }
    }

    /// Sends `error` to the connection streaming the session now.
    func send(_ error: WireError) {
        let connection = state.withLock { $0.connection }
        _ = connection.send(textBytes: error.json.serializedBytes(.compact))
    }
}
