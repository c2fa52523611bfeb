import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindTestSupport

/// A minimal app speaking `rewind.app.v1` directly: events that bump a counter.
final class StreamingApp: WebSocketClientDelegate, @unchecked Sendable {
    private let condition = NSCondition()
    private var acked: Int64 = -1
    private var nextSeq: Int64?
    private var closed = false
    let client: WebSocketClient

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/app", subprotocol: AppMessage.subprotocol)
        try client.connect(delegate: self)
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let reply = try? ServerToApp(frame: message.bytes) else { return }
        condition.lock()
        switch reply {
        case .welcome(_, _, let next, _): nextSeq = next
        case .ack(let seq): acked = max(acked, seq)
        default: break
        }
        condition.broadcast()
        condition.unlock()
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) { finish() }
    func didFailToConnect(reason: String) { finish() }

    private func finish() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    var highestAck: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return acked
    }

    /// Says hello (proving the session with `secret`, when given) and returns the seq the
    /// server expects next.
    func hello(session: String, secret: String? = nil) -> Int64? {
        _ = client.send(text: AppMessage.hello(AppMessage.Hello(id: 1, session: session, app: "CLI test", secret: secret)).json.serialized(.compact))
        return wait { $0.nextSeq }
    }

    /// Whether the connection has closed.
    var isClosed: Bool { condition.withLock { closed } }

    func waitForAck(_ seq: Int64, timeout: Double = 30) -> Bool {
        wait(timeout: timeout) { $0.acked >= seq ? true : nil } ?? false
    }

    /// Waits until the connection is gone.
    func waitForClose(timeout: Double = 20) -> Bool {
        wait(timeout: timeout) { $0.closed ? true : nil } ?? false
    }

    private func wait<T>(timeout: Double = 20, _ value: (StreamingApp) -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = value(self) { return result }
            if closed && nextSeq == nil { return nil }
            if !condition.wait(until: deadline) { return value(self) }
        }
    }

    /// Sends `event`; when the connection's queue is full (the server pauses reading an app
    /// that sends faster than it stores), waits until there is room, as a real app's sink would.
    func send(_ event: JSONValue) {
        let text = event.serialized(.compact)
        let deadline = Date(timeIntervalSinceNow: 120)
        while client.send(text: text) == .queueFull, Date() < deadline {
            usleep(1_000)
        }
    }

    /// Event `seq` of the counter recording (seq 0 is the keyframe).
    static func event(_ seq: Int64) -> JSONValue {
        let state: JSONValue = ["count": .number(JSONNumber(seq)), "note": "streamed"]
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"], keyframe: state, hash: state.stableHash)).json
        }
        return AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000, action: ["type": "increment"],
                                          patch: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))]],
                                          hash: state.stableHash)).json
    }
}
