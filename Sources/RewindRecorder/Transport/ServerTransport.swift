import Foundation

/// How a ``ServerSink`` opens its WebSocket to `rewind serve`: always the platform's own for an
/// app; the tests choose one to run both on Linux.
///
/// Everything above the connection (hello, resend from the server's `nextSeq`, acks, backoff,
/// commands) is the same whichever carries it.
package enum ServerTransport: Sendable, Equatable, CustomStringConvertible {
    /// The platform's own: `URLSessionWebSocketTask` on Apple platforms, libwebsockets on Linux.
    case automatic
    /// `URLSessionWebSocketTask`. It compiles everywhere, but it runs only where URLSession can
    /// open WebSockets: Apple platforms. On Linux, FoundationNetworking relies on libcurl, and
    /// Debian's libcurl has no WebSocket support, so the first connect fails at once and the
    /// sink gives up with one sentence saying so (``ServerSink/Status/problem``).
    case urlSession
    /// The libwebsockets client. Linux only: libwebsockets is not in the Apple SDKs, so on Apple
    /// platforms the first connect fails at once with one sentence saying so.
    case libwebsockets

    /// The transport `automatic` stands for on this platform.
    package var resolved: ServerTransport {
        guard self == .automatic else { return self }
        #if os(Linux) && !REWIND_APPLE_SHAPES
        return .libwebsockets
        #else
        return .urlSession
        #endif
    }

    package var description: String {
        switch self {
        case .automatic: "automatic (\(resolved))"
        case .urlSession: "URLSession"
        case .libwebsockets: "libwebsockets"
        }
    }

    /// A connection for `request`, not yet open.
    func makeConnection(_ request: TransportRequest) -> any TransportConnection {
        switch resolved {
        case .urlSession:
            return URLSessionTransportConnection(request: request)
        case .libwebsockets, .automatic:
            #if os(Linux) && !REWIND_APPLE_SHAPES
            return LibWebSocketsTransportConnection(request: request)
            #else
            return UnavailableTransportConnection(reason: """
                the libwebsockets transport exists only on Linux (libwebsockets is not in the Apple SDKs); \
                use URLSession (the platform's own transport)
                """)
            #endif
        }
    }
}

/// What a connection needs to know: where, which subprotocol, the token, and how much it may queue.
struct TransportRequest: Sendable {
    var url: URL
    var subprotocol: String
    var token: String?
    /// A CA certificate file (PEM or DER) to trust besides the system's, for `wss`.
    var caFile: String? = nil
    /// Sends beyond these (messages not yet written to the socket) are refused: the link then
    /// reconnects and resends from what the server acknowledged.
    var maxQueuedMessages: Int
    var maxQueuedBytes: Int
}

/// Why a connection could not be opened, in one sentence, and whether trying again can help.
struct TransportFailure: Sendable, Equatable {
    var reason: String
    /// A retry cannot succeed (this transport cannot run here); the link gives up.
    var isPermanent: Bool = false
    /// Not a failed connect: a sentence about the session's events (one kept from the server,
    /// which would refuse it as over its limits; events a server lacks that the link can no
    /// longer send); `reason` is the one sentence to report.
    var aboutEvents: Bool = false
}

/// What a connection tells its link. Calls come from the transport's own thread or queue.
protocol TransportListener: AnyObject, Sendable {
    /// The upgrade succeeded: the link may say hello.
    func transportDidConnect()
    /// The connection could not be opened.
    func transportDidFail(_ failure: TransportFailure)
    /// One text message from the server.
    func transportDidReceive(_ bytes: [UInt8])
    /// An open connection ended (closed by either side or lost).
    func transportDidClose()
}

/// One WebSocket to the server: opened once, used until it closes, never reopened.
protocol TransportConnection: AnyObject, Sendable {
    /// Starts opening; the outcome comes to `listener`.
    func open(listener: any TransportListener)
    /// Queues one text message; `false` when the queue is full or the connection is closing.
    func send(text: String) -> Bool
    /// Closes after what is queued is written: `normal` (1000) or `goingAway` (1001).
    func close(goingAway: Bool)
    /// Whether the connection is over (closed, failed or never opened).
    var isFinished: Bool { get }
    /// Waits until ``isFinished`` or `timeout` passes.
    func waitUntilFinished(timeout: Duration) -> Bool
}

/// A connection that fails as soon as it is opened: the transport cannot run on this platform.
final class UnavailableTransportConnection: TransportConnection, @unchecked Sendable {
    private let reason: String

    init(reason: String) {
        self.reason = reason
    }

    func open(listener: any TransportListener) {
        listener.transportDidFail(TransportFailure(reason: reason, isPermanent: true))
    }

    func send(text: String) -> Bool { false }
    func close(goingAway: Bool) {}
    var isFinished: Bool { true }
    func waitUntilFinished(timeout: Duration) -> Bool { true }
}
