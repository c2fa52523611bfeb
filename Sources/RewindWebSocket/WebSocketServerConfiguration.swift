/// Everything a ``WebSocketServer`` needs to know before it starts.
///
/// ```swift
/// var configuration = WebSocketServerConfiguration(endpoints: [
///     WebSocketEndpoint(path: "/app", subprotocol: "rewind.app.v1"),
///     WebSocketEndpoint(path: "/inspect", subprotocol: "rewind.inspect.v1"),
/// ])
/// configuration.port = 7433
/// ```
public struct WebSocketServerConfiguration: Sendable, Hashable {
    /// The numeric address to listen on (an IPv4 or IPv6 literal, or an interface name such as
    /// `lo`); default `127.0.0.1`.
    public var host: String
    /// The TCP port; 0 lets the system pick one (read it back from ``WebSocketServer/port``).
    public var port: Int
    /// The WebSocket paths and their subprotocols.
    public var endpoints: [WebSocketEndpoint]
    /// The largest incoming message, in bytes (default 16 MiB). A connection whose message grows
    /// past it is closed with ``WebSocketCloseCode/messageTooLarge`` and the message is dropped.
    /// An endpoint may set its own (``WebSocketEndpoint/maxMessageSize``).
    public var maxMessageSize: Int
    /// Bounds on each connection's outgoing queue.
    public var queueLimits: WebSocketQueueLimits
    /// The most bytes queued for sending across all connections (default 256 MiB). A send that
    /// would pass it first closes the connection holding the largest queue with
    /// ``WebSocketCloseCode/policyViolation`` and drops that queue.
    public var maxQueuedBytesTotal: Int = 256 << 20
    /// Idle pings and hang-up; `nil` turns both off.
    public var keepAlive: WebSocketKeepAlive?
    /// How long ``WebSocketServer/shutdown(closeCode:)`` lets queued output drain and close
    /// handshakes finish before it drops what is left (default 2 s).
    public var shutdownGracePeriod: Duration
    /// Header names outside libwebsockets' built-in list that requests should carry, e.g.
    /// `x-rewind-token` (lower case, no colon).
    public var customHeaderNames: [String]
    /// How long the service thread waits, after a pass that read only a little, before it looks
    /// at the sockets again (default zero: it looks at once; at most 100 ms). Frames that arrive
    /// meanwhile are read in one pass: at a few thousand small messages a second, one wake-up of
    /// the service thread serves several of them instead of one each, and so does each wake-up
    /// of a thread the delegate hands them to. The price is up to this much more latency, for
    /// input and for output queued during the wait. A pass that read a lot (half of a read's
    /// 64 KiB buffer or more) never waits, so a flood is not slowed.
    public var receiveGathering: Duration = .zero
    /// The certificate and key to serve `https` and `wss` with, or `nil` for plain `http` and
    /// `ws`. With TLS every connection must speak it: plain HTTP to the port fails its handshake
    /// and is closed, without holding up anyone else. Only HTTP/1.1 is offered (ALPN).
    public var tls: WebSocketTLS?
    /// How long an HTTP/1.1 connection may wait between one response and the next request
    /// before the server closes it (default 5 s, libwebsockets' own; counted in whole seconds, at
    /// least 1). Idle connections hold a socket each; a client that comes back later connects
    /// again.
    public var httpIdleTimeout: Duration = .seconds(5)
    /// How many accepted connections may wait for their first request, per peer address and in
    /// all; past these a new connection is closed at once (before TLS, before any token).
    public var handshakeLimits = WebSocketHandshakeLimits()

    /// A configuration with the given endpoints and defaults for the rest.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        endpoints: [WebSocketEndpoint] = [],
        maxMessageSize: Int = 16 << 20,
        queueLimits: WebSocketQueueLimits = WebSocketQueueLimits(),
        keepAlive: WebSocketKeepAlive? = WebSocketKeepAlive(),
        shutdownGracePeriod: Duration = .seconds(2),
        customHeaderNames: [String] = []
    ) {
        self.host = host
        self.port = port
        self.endpoints = endpoints
        self.maxMessageSize = maxMessageSize
        self.queueLimits = queueLimits
        self.keepAlive = keepAlive
        self.shutdownGracePeriod = shutdownGracePeriod
        self.customHeaderNames = customHeaderNames
    }
}
