/// Why a server or client could not start.
public enum WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The listening socket could not be bound; `reason` is the system's word for it
    /// (`Address already in use`, `Cannot assign requested address`, …).
    case cannotListen(host: String, port: Int, reason: String)
    /// libwebsockets refused to create its context (out of memory or file descriptors).
    case contextCreationFailed(String)
    /// The configuration cannot work; says which part and why.
    case invalidConfiguration(String)
    /// The client URL is not a `ws://host[:port]/path` URL.
    case invalidURL(String, reason: String)
    /// `start()` or `connect()` was called a second time.
    case alreadyStarted
    /// A TLS certificate, key or CA file cannot be used; the sentence names the file and why.
    case tls(String)
    /// An ``HTTPFetch`` got no whole answer; the sentence says why.
    case requestFailed(String)

    /// One sentence saying what failed and where.
    public var description: String {
        switch self {
        case let .cannotListen(host, port, reason):
            "cannot listen on \(host):\(port): \(reason)"
        case let .contextCreationFailed(message):
            "cannot create the libwebsockets context: \(message)"
        case let .invalidConfiguration(message):
            "invalid WebSocket configuration: \(message)"
        case let .invalidURL(url, reason):
            "invalid WebSocket URL '\(url)': \(reason)"
        case .alreadyStarted:
            "already started; create a new instance to start again"
        case let .tls(message):
            message
        case let .requestFailed(message):
            message
        }
    }
}
