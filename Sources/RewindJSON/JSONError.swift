/// Why a JSON text could not be parsed, and where.
///
/// `line` and `column` are 1-based; the column counts Unicode scalars, so it matches what an
/// editor shows. `description` reads `line 3, column 14: expected ',' or '}' after an object member`.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line of the offending byte.
    public var line: Int
    /// The 1-based column (in Unicode scalars) of the offending byte.
    public var column: Int
    /// The 0-based byte offset of the offending byte.
    public var offset: Int
    /// What was wrong, as one sentence fragment: `expected a value`, `invalid UTF-8`.
    public var message: String

    /// An error at `line` and `column` (1-based) and byte `offset` (0-based).
    public init(line: Int, column: Int, offset: Int, message: String) {
        self.line = line
        self.column = column
        self.offset = offset
        self.message = message
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }

    /// Locates `offset` within `bytes` to give an error with its line and column.
    static func at(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>, _ message: String) -> JSONError {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let b = bytes[i]
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                // Count lead bytes only, so a multi-byte character is one column.
                column += 1
            }
            i += 1
        }
        return JSONError(line: line, column: column, offset: offset, message: message)
    }
}
