/// One whole WebSocket message: every fragment of it, assembled.
///
/// ```swift
/// switch message {
/// case .text(let bytes): handleJSON(bytes)
/// case .binary(let bytes): handleBlob(bytes)
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message: its UTF-8 bytes (validated by the receiving side).
    case text([UInt8])
    /// A binary message.
    case binary([UInt8])

    /// A text message holding the UTF-8 encoding of `string`.
    public init(text string: String) {
        self = .text(Array(string.utf8))
    }

    /// The payload, whatever the kind.
    public var bytes: [UInt8] {
        switch self {
        case .text(let bytes), .binary(let bytes): bytes
        }
    }

    /// Whether this is a text message.
    public var isText: Bool {
        if case .text = self { return true }
        return false
    }

    /// The payload decoded as UTF-8 when this is a text message, else `nil`.
    public var string: String? {
        guard case .text(let bytes) = self else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
