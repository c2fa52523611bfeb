/// A WebSocket and HTTP server on libwebsockets, with its own service thread.
///
/// ```swift
/// let server = WebSocketServer(
///     configuration: WebSocketServerConfiguration(port: 7433, endpoints: [
///         WebSocketEndpoint(path: "/app", subprotocol: "rewind.app.v1"),
///         WebSocketEndpoint(path: "/inspect", subprotocol: "rewind.inspect.v1"),
///     ]),
///     delegate: ingest
/// )
/// try server.start()          // listening on 127.0.0.1:7433
/// …
/// server.shutdown()           // every connection closed with 1001, thread joined
/// ```
///
/// Every libwebsockets call happens on the service thread; the delegate is called there too.
/// `start`, `shutdown` and everything on ``WebSocketConnection`` may be called from any thread.
/// The server holds its delegate strongly until it has shut down.
public final class WebSocketServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: WebSocketServerConfiguration
    private let engine: ServerEngine

    /// A server that will listen as `configuration` says and report to `delegate`.
    public init(configuration: WebSocketServerConfiguration, delegate: any WebSocketServerDelegate) {
        self.configuration = configuration
        self.engine = ServerEngine(configuration: configuration, delegate: delegate)
    }

    deinit {
        engine.shutdown(code: .goingAway, wait: false)
    }

    /// Creates the context, binds the port and starts serving; returns once listening.
    ///
    /// - Throws: ``WebSocketError/cannotListen(host:port:reason:)`` when the address cannot be
    ///   bound (`Address already in use`), ``WebSocketError/invalidConfiguration(_:)`` for
    ///   endpoints or limits that cannot work, ``WebSocketError/alreadyStarted`` on a second call.
    public func start() throws(WebSocketError) {
        _ = try engine.start()
    }

    /// The port listened on (the system's pick when configured with 0), once started; `nil`
    /// before, after a failed start, and after shutdown.
    public var port: Int? {
        if case .running(let port) = engine.control.withLock({ $0.phase }) { return port }
        return nil
    }

    /// Whether the service thread is running.
    public var isRunning: Bool {
        if case .running = engine.control.withLock({ $0.phase }) { return true }
        return false
    }

    /// How many WebSocket connections are open.
    /// WebSocket bytes received (frames' payloads, as they arrived) and sent (messages taken for
    /// writing) since the server started: for metrics.
    public var traffic: (received: UInt64, sent: UInt64) {
        engine.outputBudget.traffic
    }

    public var openConnectionCount: Int {
        engine.control.withLock { $0.openConnections }
    }

    /// How many connections were closed at accept because too many others from their address (or
    /// in all) had not sent their request yet (``WebSocketServerConfiguration/handshakeLimits``).
    public var refusedConnectionCount: Int {
        engine.control.withLock { $0.refusedConnections }
    }

    /// What the streamed HTTP responses hold now: producers running, bytes waiting to be sent,
    /// and the most that ever waited at once.
    public var streamStatistics: HTTPStreamStatistics {
        engine.streamMeter.statistics
    }

    /// Stops accepting connections, lets queued output drain, closes every connection with
    /// `closeCode`, then destroys the context on the service thread and joins it. Waits at most
    /// the configured grace period for peers before dropping them. Called from a delegate method
    /// (on the service thread) it starts the shutdown and returns at once. Safe to call twice.
    public func shutdown(closeCode: WebSocketCloseCode = .goingAway) {
        engine.shutdown(code: closeCode)
    }
}
