/// Where a ``WebSocketClient`` connects and how it behaves.
///
/// ```swift
/// var configuration = WebSocketClientConfiguration(url: "ws://127.0.0.1:7433/app", subprotocol: "rewind.app.v1")
/// configuration.headers = ["Authorization": "Bearer \(token)"]
/// ```
public struct WebSocketClientConfiguration: Sendable, Hashable {
    /// `ws://host[:port]/path[?query]` (the port defaults to 80), or `wss://` over TLS (443).
    public var url: String
    /// For `wss`: a PEM or DER file of a CA certificate to trust besides the system's, for a
    /// server whose certificate a private CA signed; `nil` trusts the system's CAs only. The
    /// server's certificate must name the host of ``url`` either way. An unreadable file, or one
    /// that is neither PEM nor DER, fails the connect at once with one sentence naming it.
    public var caFile: String?
    /// The subprotocol to ask for, or `nil` to ask for none.
    public var subprotocol: String?
    /// The `Origin` header to send, or `nil` for none.
    public var origin: String?
    /// Extra handshake headers, e.g. `Authorization`.
    public var headers: HTTPHeaders
    /// The largest incoming message, in bytes (default 16 MiB); a larger one closes the
    /// connection with ``WebSocketCloseCode/messageTooLarge``.
    public var maxMessageSize: Int
    /// Bounds on the outgoing queue.
    public var queueLimits: WebSocketQueueLimits
    /// Idle pings and hang-up; `nil` turns both off.
    public var keepAlive: WebSocketKeepAlive?
    /// Seconds allowed to connect and finish the handshake (default 10).
    public var connectTimeoutSeconds: UInt32

    /// A configuration for `url` with defaults for the rest.
    public init(
        url: String,
        subprotocol: String? = nil,
        origin: String? = nil,
        headers: HTTPHeaders = [:],
        maxMessageSize: Int = 16 << 20,
        queueLimits: WebSocketQueueLimits = WebSocketQueueLimits(),
        keepAlive: WebSocketKeepAlive? = WebSocketKeepAlive(),
        connectTimeoutSeconds: UInt32 = 10,
        caFile: String? = nil
    ) {
        self.caFile = caFile
        self.url = url
        self.subprotocol = subprotocol
        self.origin = origin
        self.headers = headers
        self.maxMessageSize = maxMessageSize
        self.queueLimits = queueLimits
        self.keepAlive = keepAlive
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }
}
