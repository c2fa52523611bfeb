/// What a ``WebSocketClient`` tells its owner.
///
/// Every method is called **on the client's service thread**; keep them quick. Exactly one of
/// `didFailToConnect` or `didConnect`…`didClose` happens per client. Every method has a default.
public protocol WebSocketClientDelegate: AnyObject, Sendable {
    /// The handshake succeeded; `connection` may be sent to (messages queued before are on their way).
    func didConnect(_ connection: WebSocketConnection)

    /// No connection came about: nothing listening, the server refused the upgrade (e.g. 403),
    /// a timeout, or `close()` before the handshake finished. `reason` says which, in lws' words.
    func didFailToConnect(reason: String)

    /// A whole message arrived.
    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection)

    /// The connection closed: `code` is the server's close code, the one this side sent when it
    /// closed first, or ``WebSocketCloseCode/abnormalClosure`` when the link just dropped.
    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode)
}

extension WebSocketClientDelegate {
    /// Default: does nothing.
    public func didConnect(_ connection: WebSocketConnection) {}
    /// Default: does nothing.
    public func didFailToConnect(reason: String) {}
    /// Default: drops the message.
    public func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {}
    /// Default: does nothing.
    public func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {}
}
