import Foundation
import RewindJSON
import RewindSupport
import RewindTestSupport
import RewindWebSocket
import RewindWire

/// A raw connection to `/app` that keeps what the server says: every reply as JSON, the highest
/// ack, the `welcome`'s `nextSeq`, the commands relayed, and whether it closed. The tests' apps
/// that speak the protocol themselves (`StreamingApp`, `HostileApp`, `Forger`) are built on it.
final class AppSocket: WebSocketClientDelegate, Sendable {
    struct State: Sendable {
        var replies: [JSONValue] = []
        var acked: Int64 = -1
        var nextSeq: Int64?
        var welcomed = false
        var commands: [Command] = []
        var closed = false
    }

    let state = Condition(State())
    let client: WebSocketClient
    /// Called on the client's thread with each relayed command, after it is kept.
    private let onCommand: (@Sendable (Command) -> Void)?

    init(port: Int, onCommand: (@Sendable (Command) -> Void)? = nil) throws {
        self.onCommand = onCommand
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/app", subprotocol: AppMessage.subprotocol)
        try client.connect(delegate: self)
    }

    /// Sends `message`; when the connection's queue is full (the server pauses reading an app
    /// that sends faster than it stores), waits until there is room, as a real app's sink would.
    func send(_ message: JSONValue) {
        let text = message.serialized(.compact)
        let deadline = Date(timeIntervalSinceNow: 120)
        while client.send(text: text) == .queueFull, Date() < deadline {
            usleep(1_000)
        }
    }

    /// Waits until `value` finds something in the state, the connection closes, or `timeout`
    /// seconds pass; returns what it found last.
    func wait<T>(timeout: Double = 20, _ value: (State) -> T?) -> T? {
        var found: T?
        _ = state.wait(timeout: timeout) { state in
            found = value(state)
            return found != nil || state.closed
        }
        return found ?? value(state.value)
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let json = try? JSONValue(parsing: message.bytes) else { return }
        let reply = try? ServerToApp(json: json)
        state.update { state in
            state.replies.append(json)
            switch reply {
            case .welcome(_, _, let next, _)?:
                state.nextSeq = next
                state.welcomed = true
            case .ack(let seq)?: state.acked = max(state.acked, seq)
            case .command(let command)?: state.commands.append(command)
            default: break
            }
        }
        if case .command(let command)? = reply { onCommand?(command) }
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) { finish() }
    func didFailToConnect(reason: String) { finish() }

    private func finish() {
        state.update { $0.closed = true }
    }
}
