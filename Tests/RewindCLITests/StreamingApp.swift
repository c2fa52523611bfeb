import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindTestSupport

/// A minimal app speaking `rewind.app.v1` directly: events that bump a counter.
final class StreamingApp: Sendable {
    private let socket: AppSocket
    var client: WebSocketClient { socket.client }

    init(port: Int) throws {
        socket = try AppSocket(port: port)
    }

    var highestAck: Int64 { socket.state.value.acked }

    /// Says hello (proving the session with `secret`, when given) and returns the seq the
    /// server expects next.
    func hello(session: String, secret: String? = nil) -> Int64? {
        socket.send(AppMessage.hello(AppMessage.Hello(id: 1, session: session, app: "CLI test", secret: secret)).json)
        return socket.wait { $0.nextSeq }
    }

    /// Whether the connection has closed.
    var isClosed: Bool { socket.state.value.closed }

    func waitForAck(_ seq: Int64, timeout: Double = 30) -> Bool {
        socket.wait(timeout: timeout) { $0.acked >= seq ? true : nil } ?? false
    }

    /// Waits until the connection is gone.
    func waitForClose(timeout: Double = 20) -> Bool {
        socket.wait(timeout: timeout) { $0.closed ? true : nil } ?? false
    }

    /// Sends `event` (or any message), waiting for room as a real app's sink would.
    func send(_ event: JSONValue) {
        socket.send(event)
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
