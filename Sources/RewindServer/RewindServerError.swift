import RewindLog
import RewindWebSocket

/// Why a ``RewindServer`` could not start.
public enum RewindServerError: Error, Sendable, CustomStringConvertible {
    /// A non-loopback address without a token: anyone on the network could read the app's state.
    case tokenRequired(host: String)
    /// The tokens cannot work together (``RewindServerConfiguration/tokenProblem``).
    case tokens(String)
    /// The log could not be opened.
    case log(LogError)
    /// The socket could not be bound or the server not started.
    case webSocket(WebSocketError)
    /// ``RewindServer/start()`` was called a second time.
    case alreadyStarted

    /// One sentence that says what failed.
    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "refusing to listen on \(host) without a token: pass --token (or set REWIND_TOKEN), or bind 127.0.0.1"
        case .tokens(let message):
            message
        case .log(let error):
            error.description
        case .webSocket(let error):
            error.description
        case .alreadyStarted:
            "the server was already started; create a new one to start again"
        }
    }
}
