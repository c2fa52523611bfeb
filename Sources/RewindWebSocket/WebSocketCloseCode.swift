/// The status code of a WebSocket close (RFC 6455 §7.4).
///
/// Codes the peer never sent are reported with the standard placeholders: `.noStatus` (1005) when
/// a close frame carried no code, `.abnormalClosure` (1006) when the connection dropped without one.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var rawValue: UInt16

    /// A close code with the given number (1000–4999 are valid on the wire).
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page navigated away).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame carried no status code (never sent on the wire).
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection closed without a close frame (never sent on the wire).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message was not valid UTF-8.
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was larger than the endpoint accepts.
    public static let messageTooLarge = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the endpoint hit an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// The number with its name, e.g. `1001 (going away)`.
    public var description: String {
        switch rawValue {
        case 1000: "1000 (normal)"
        case 1001: "1001 (going away)"
        case 1002: "1002 (protocol error)"
        case 1003: "1003 (unsupported data)"
        case 1005: "1005 (no status)"
        case 1006: "1006 (abnormal closure)"
        case 1007: "1007 (invalid payload)"
        case 1008: "1008 (policy violation)"
        case 1009: "1009 (message too large)"
        case 1011: "1011 (internal error)"
        default: "\(rawValue)"
        }
    }
}
