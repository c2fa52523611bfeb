/// One open WebSocket connection, server or client side: a handle any thread may keep and use.
///
/// Sending only queues the message (bounded, see ``WebSocketQueueLimits``) and wakes the service
/// thread, which writes it; messages from one thread go out in the order it sent them.
///
/// ```swift
/// switch connection.send(text: #"{"type":"ack","seq":41}"#) {
/// case .enqueued: break
/// case .queueFull: markLagged(connection)
/// case .closed: forget(connection)
/// }
/// ```
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// A number unique among this process' connections.
    public var id: UInt64 { core.id }
    /// The request path, e.g. `/app`.
    public let path: String
    /// The subprotocol spoken, e.g. `rewind.app.v1` (empty when none was negotiated).
    public let subprotocol: String
    /// The peer's address and port, e.g. `127.0.0.1:51234` (client side: the URL's host and port).
    public let remoteAddress: String
    /// The upgrade request that opened this connection (server side), or `nil` (client side).
    public let request: WebSocketUpgradeRequest?

    let core: ConnectionCore

    init(core: ConnectionCore, path: String, subprotocol: String, remoteAddress: String, request: WebSocketUpgradeRequest?) {
        self.core = core
        self.path = path
        self.subprotocol = subprotocol
        self.remoteAddress = remoteAddress
        self.request = request
    }

    /// A connection attached to no socket, for driving a server's handlers in-process (the fuzzer):
    /// what is sent to it queues until ``takeDetachedOutput()``, within `limits` like any other.
    package static func detached(path: String, limits: WebSocketQueueLimits = WebSocketQueueLimits()) -> WebSocketConnection {
        let core = ConnectionCore(id: ConnectionID.next(), limits: limits, maxMessageSize: .max, waker: ServiceWaker())
        return WebSocketConnection(core: core, path: path, subprotocol: "", remoteAddress: "in-process", request: nil)
    }

    /// The messages sent to a ``detached(path:limits:)`` connection so far, oldest first, and
    /// whether it was asked to close.
    package func takeDetachedOutput() -> (messages: [[UInt8]], closing: Bool) {
        defer { core.forgetWakeUps() }
        var messages: [[UInt8]] = []
        while true {
            switch core.next() {
            case .message(let message): messages.append(message.bytes)
            case .close: return (messages, true)
            case .nothing:
                core.clearWakeFlag()
                return (messages, false)
            }
        }
    }

    /// Queues `message` for sending; never blocks.
    public func send(_ message: WebSocketMessage) -> WebSocketSendResult {
        core.enqueue(message)
    }

    /// Queues a text message holding the UTF-8 of `text`.
    public func send(text: String) -> WebSocketSendResult {
        core.enqueue(.text(Array(text.utf8)))
    }

    /// Queues a text message of already-encoded UTF-8 bytes (e.g. serialized JSON).
    public func send(textBytes: [UInt8]) -> WebSocketSendResult {
        core.enqueue(.text(textBytes))
    }

    /// Queues a binary message.
    public func send(binary: [UInt8]) -> WebSocketSendResult {
        core.enqueue(.binary(binary))
    }

    /// Closes after the messages already queued: sends a close frame with `code` and `reason`
    /// (at most 123 bytes of UTF-8), and refuses further sends. A peer that stops reading is
    /// dropped 10 seconds later. Later calls have no effect.
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        core.requestClose(code: code, reason: reason)
    }

    /// Stops reading this connection's socket until ``resumeReceiving()``: its messages wait in the
    /// kernel and then in the peer, so a receiver that cannot keep up holds no more of them.
    /// Any thread; a message already read may still arrive.
    public func pauseReceiving() {
        core.setReceivePaused(true)
    }

    /// Reads this connection's socket again after ``pauseReceiving()``. Any thread.
    public func resumeReceiving() {
        core.setReceivePaused(false)
    }

    /// How many messages have left in a batch with others (for tests and benchmarks).
    package var batchedMessageCount: Int { core.batchedMessageCount }

    /// Whether sends are still accepted (no close requested or seen).
    public var isOpen: Bool { core.isOpen }

    /// Messages waiting to be written (not counting the one being written).
    public var queuedMessageCount: Int { core.queuedMessageCount }

    /// Payload bytes waiting to be written.
    public var queuedByteCount: Int { core.queuedByteCount }

    /// `WebSocketConnection #7 /app [rewind.app.v1] from 127.0.0.1:51234`.
    public var description: String {
        "WebSocketConnection #\(id) \(path) [\(subprotocol)] from \(remoteAddress)"
    }

    /// The same connection (identity).
    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool {
        lhs === rhs
    }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
