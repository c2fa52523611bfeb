import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindSupport

/// A minimal inspector on `/inspect`: sends requests and keeps every JSON reply.
final class InspectorClient: WebSocketClientDelegate, @unchecked Sendable {
    private let lock = Mutex()
    private var replies: [JSONValue] = []
    private var connected = false
    private let client: WebSocketClient

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)\(InspectorRequest.path)",
                                     subprotocol: InspectorRequest.subprotocol)
        try client.connect(delegate: self)
    }

    var isConnected: Bool { lock.withLock { connected } }

    func send(_ request: JSONValue) {
        _ = client.send(text: request.serialized())
    }

    /// The reply whose `id` is `id`, once it arrived.
    func reply(id: JSONValue) -> JSONValue? {
        lock.withLock { replies.first { $0["id"] == id } }
    }

    func close() {
        client.close()
    }

    func didConnect(_ connection: WebSocketConnection) {
        lock.withLock { connected = true }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let value = try? JSONValue(parsing: message.bytes) else { return }
        lock.withLock { replies.append(value) }
    }
}
