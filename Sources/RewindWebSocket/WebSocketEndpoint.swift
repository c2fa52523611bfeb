/// A WebSocket path and the one subprotocol spoken there.
///
/// An upgrade to `path` is accepted only when the client offers `subprotocol` (and offers no other
/// configured subprotocol before it); anything else is answered `403 Forbidden`.
public struct WebSocketEndpoint: Sendable, Hashable {
    /// The exact request path, e.g. `/app`.
    public var path: String
    /// The `Sec-WebSocket-Protocol` name, e.g. `rewind.app.v1`.
    public var subprotocol: String
    /// The largest incoming message on this endpoint, in bytes; `nil` for the server's
    /// ``WebSocketServerConfiguration/maxMessageSize``.
    public var maxMessageSize: Int?

    /// The endpoint speaking `subprotocol` at `path`, with its own message limit when given.
    public init(path: String, subprotocol: String, maxMessageSize: Int? = nil) {
        self.path = path
        self.subprotocol = subprotocol
        self.maxMessageSize = maxMessageSize
    }
}
