/// What a ``WebSocketServer`` tells its owner, and asks it.
///
/// Every method is called **on the server's service thread**, one at a time, in the order things
/// happen on the wire. Keep them quick: while one runs, no connection of this server reads or
/// writes. Hand longer work to another thread; ``WebSocketConnection`` may be used from anywhere.
/// Every method has a default, so implement only what you need.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// Whether to accept an upgrade whose path and subprotocol already match an endpoint.
    /// Return `false` (e.g. for a foreign `Origin` or a missing token) to answer `403 Forbidden`
    /// before any WebSocket exists. Default: accept.
    func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool

    /// A connection finished its handshake and may be sent to.
    func didOpen(_ connection: WebSocketConnection)

    /// A whole message arrived on `connection`.
    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection)

    /// `connection` closed: `code` is the peer's close code, the one this side sent when it
    /// closed first, or ``WebSocketCloseCode/abnormalClosure`` when the link just dropped.
    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode)

    /// The answer to a plain `GET` or `HEAD` request. Return ``HTTPResponse/deferred(_:)`` for
    /// an answer that takes long to make. Default: ``HTTPResponse/notFound``.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

extension WebSocketServerDelegate {
    /// Default: accepts every request that matched an endpoint.
    public func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool { true }
    /// Default: does nothing.
    public func didOpen(_ connection: WebSocketConnection) {}
    /// Default: drops the message.
    public func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {}
    /// Default: does nothing.
    public func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {}
    /// Default: ``HTTPResponse/notFound``.
    public func respond(to request: HTTPRequest) -> HTTPResponse { .notFound }
}
