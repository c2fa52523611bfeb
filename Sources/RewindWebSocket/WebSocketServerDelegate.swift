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

    /// Why to refuse an upgrade whose path and subprotocol already match an endpoint, or `nil`
    /// to accept it: the refusal's status and sentence are the HTTP answer, before any WebSocket
    /// exists. Default: ``shouldAccept(_:)``'s word, refused with `403 Forbidden` and no sentence.
    func refusal(of request: WebSocketUpgradeRequest) -> WebSocketRefusal?

    /// A connection finished its handshake and may be sent to.
    func didOpen(_ connection: WebSocketConnection)

    /// A whole message arrived on `connection`.
    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection)

    /// `connection` closed: `code` is the peer's close code, the one this side sent when it
    /// closed first, or ``WebSocketCloseCode/abnormalClosure`` when the link just dropped.
    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode)

    /// A pass of the service loop that delivered messages (``didReceive(_:from:)``) ended.
    /// `readLittle`: the pass read less than half of what one read may take, so the server's
    /// input is light (with ``WebSocketServerConfiguration/receiveGathering`` it now waits that
    /// long before its next look). Quick work on what the pass delivered may be done here, on
    /// the service thread, where handing it to another thread would cost a wake-up more than
    /// the work. Default: does nothing.
    func didFinishServicePass(readLittle: Bool)

    /// The answer to a plain `GET` or `HEAD` request. Return ``HTTPResponse/deferred(_:)`` for
    /// an answer that takes long to make. Default: ``HTTPResponse/notFound``.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

extension WebSocketServerDelegate {
    /// Default: accepts every request that matched an endpoint.
    public func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool { true }
    /// Default: `nil` when ``shouldAccept(_:)`` accepts, else `403` with no sentence.
    public func refusal(of request: WebSocketUpgradeRequest) -> WebSocketRefusal? {
        shouldAccept(request) ? nil : WebSocketRefusal(status: 403)
    }
    /// Default: does nothing.
    public func didOpen(_ connection: WebSocketConnection) {}
    /// Default: drops the message.
    public func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {}
    /// Default: does nothing.
    public func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {}
    /// Default: does nothing.
    public func didFinishServicePass(readLittle: Bool) {}
    /// Default: ``HTTPResponse/notFound``.
    public func respond(to request: HTTPRequest) -> HTTPResponse { .notFound }
}

/// How a server refuses a WebSocket upgrade: an HTTP status (`401`, `403`, …) and a sentence
/// for whoever reads the answer (sent as a short HTML body, escaped).
public struct WebSocketRefusal: Sendable, Hashable {
    public var status: Int
    public var reason: String

    public init(status: Int, reason: String = "") {
        self.status = status
        self.reason = reason
    }
}
