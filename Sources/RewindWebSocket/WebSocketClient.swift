import RewindSupport

/// A WebSocket client connection on libwebsockets, with its own service thread.
///
/// One client is one connection attempt: `connect` starts it, and when the connection ends (or
/// never comes about) the thread destroys its context and ends. To reconnect, make a new client;
/// backoff belongs to the layer above.
///
/// ```swift
/// let client = try WebSocketClient(url: "ws://127.0.0.1:7433/inspect", subprotocol: "rewind.inspect.v1")
/// try client.connect(delegate: printer)
/// _ = client.send(text: #"{"id":1,"type":"sessions"}"#)   // queued until connected
/// ```
///
/// Messages sent before the handshake completes wait in the (bounded) queue. The connection lives
/// until either side closes it; dropping the client does not close it.
public final class WebSocketClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: WebSocketClientConfiguration
    private let engine: ClientEngine

    /// A client for `configuration`; throws ``WebSocketError/invalidURL(_:reason:)`` for a URL
    /// that is not `ws://host[:port]/path`.
    public init(configuration: WebSocketClientConfiguration) throws(WebSocketError) {
        self.configuration = configuration
        self.engine = try ClientEngine(configuration: configuration)
    }

    /// A client for `url` asking for `subprotocol`, sending `origin` and `headers` with the handshake.
    public convenience init(url: String, subprotocol: String?, origin: String? = nil, headers: HTTPHeaders = [:]) throws(WebSocketError) {
        try self.init(configuration: WebSocketClientConfiguration(url: url, subprotocol: subprotocol, origin: origin, headers: headers))
    }

    /// The connection's handle: send and close through it from any thread, before or after it opens.
    public var connection: WebSocketConnection { engine.connection }

    /// Starts connecting; the outcome arrives at `delegate` on the service thread. The client
    /// holds `delegate` strongly until the connection has ended.
    public func connect(delegate: any WebSocketClientDelegate) throws(WebSocketError) {
        try engine.connect(delegate: delegate)
    }

    /// Queues `message`; see ``WebSocketConnection/send(_:)``.
    public func send(_ message: WebSocketMessage) -> WebSocketSendResult {
        engine.connection.send(message)
    }

    /// Queues a text message; see ``WebSocketConnection/send(text:)``.
    public func send(text: String) -> WebSocketSendResult {
        engine.connection.send(text: text)
    }

    /// Queues a binary message; see ``WebSocketConnection/send(binary:)``.
    public func send(binary: [UInt8]) -> WebSocketSendResult {
        engine.connection.send(binary: binary)
    }

    /// Closes after the queued messages (or abandons the attempt if not yet connected).
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        engine.connection.close(code: code, reason: reason)
    }

    /// Whether the service thread has ended (the connection is over and its context destroyed).
    public var isFinished: Bool {
        engine.control.withLock { $0.phase == .finished }
    }

    /// Waits until the service thread has ended or `timeout` passes; returns whether it ended.
    /// Never call it from a delegate method (the service thread would wait for itself).
    public func waitUntilFinished(timeout: Duration) -> Bool {
        precondition(!engine.thread.isCurrent, "waitUntilFinished called on the client's own service thread")
        return engine.control.wait(for: { $0.phase != .running }, deadline: MonotonicClock.deadline(after: timeout))
    }
}
