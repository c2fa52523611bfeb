import Dispatch
import RewindWire
import RewindWebSocket

/// Sends cumulative acks: the writer's completions report each durable seq, and at most one ack
/// send is pending at a time, carrying the highest seq known by then.
final class AckSender: @unchecked Sendable {
    private struct State {
        var durable: Int64
        var connection: WebSocketConnection
        var scheduled = false
    }

    private let state: Locked<State>
    private static let queue = DispatchQueue(label: "rewind.server.acks")

    init(connection: WebSocketConnection, durable: Int64) {
        state = Locked(State(durable: durable, connection: connection))
    }

    /// Waits until every ack scheduled so far has been handed to its connection (the harness
    /// returns what a message led to, acks included).
    static func waitForScheduledSends() {
        queue.sync {}
    }

    /// The highest seq known to be durable (-1 when none).
    var durable: Int64 { state.withLock { $0.durable } }

    /// `seq` (and everything before it) is committed.
    func committed(_ seq: Int64) {
        let schedule = state.withLock { state -> Bool in
            state.durable = max(state.durable, seq)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { Self.queue.async { self.send() } }
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

    private func send() {
        let (seq, connection) = state.withLock { state in
            state.scheduled = false
            return (state.durable, state.connection)
        }
        guard seq >= 0 else { return }
        _ = connection.send(textBytes: ServerToApp.ack(seq: seq).json.serializedBytes(.compact))
    }
}
