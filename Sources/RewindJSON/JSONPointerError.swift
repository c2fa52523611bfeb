/// Why a text is not a JSON Pointer (RFC 6901), and where.
///
/// `description` reads `invalid JSON pointer "a/b": must be empty or start with '/'` or
/// `invalid JSON pointer "/a~2": '~' at offset 2 must be followed by '0' or '1'`.
public struct JSONPointerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Reason: Sendable, Equatable {
        /// A non-empty pointer must start with `/`.
        case missingLeadingSlash
        /// A `~` not followed by `0` or `1`.
        case invalidEscape
    }

    /// The text that failed to parse.
    public var pointer: String
    /// The 0-based UTF-8 offset of the offending byte.
    public var offset: Int
    /// What was wrong.
    public var reason: Reason

    public init(pointer: String, offset: Int, reason: Reason) {
        self.pointer = pointer
        self.offset = offset
        self.reason = reason
    }

    /// The problem alone, without the pointer text: `'~' at offset 2 must be followed by '0' or '1'`.
    public var message: String {
        switch reason {
        case .missingLeadingSlash: "must be empty or start with '/'"
        case .invalidEscape: "'~' at offset \(offset) must be followed by '0' or '1'"
        }
    }

    public var description: String {
        "invalid JSON pointer \"\(pointer)\": \(message)"
    }
}
