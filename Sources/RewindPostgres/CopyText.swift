import CLibPQ
import Foundation

/// COPY's text format: fields separated by tabs, rows by newlines, `\N` for NULL, and a
/// backslash, tab, newline or carriage return inside a field escaped.
package enum CopyText {
    package static func field(_ value: Int64, _ buffer: inout [UInt8], last: Bool = false) {
        buffer.append(contentsOf: String(value).utf8)
        buffer.append(last ? 0x0A : 0x09)
    }

    package static func field(_ value: Double, _ buffer: inout [UInt8], last: Bool = false) {
        buffer.append(contentsOf: "\(value)".utf8)
        buffer.append(last ? 0x0A : 0x09)
    }

    /// A text field. PostgreSQL's text cannot hold U+0000: one becomes U+FFFD (only an action
    /// type or a send site can hold one; JSON text writes it as an escape).
    package static func field(_ bytes: [UInt8], _ buffer: inout [UInt8], last: Bool = false) {
        for byte in bytes {
            switch byte {
            case 0x00: buffer.append(contentsOf: [0xEF, 0xBF, 0xBD])
            case 0x5C: buffer.append(0x5C); buffer.append(0x5C)
            case 0x09: buffer.append(0x5C); buffer.append(UInt8(ascii: "t"))
            case 0x0A: buffer.append(0x5C); buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(0x5C); buffer.append(UInt8(ascii: "r"))
            default: buffer.append(byte)
            }
        }
        buffer.append(last ? 0x0A : 0x09)
    }

    package static func null(_ buffer: inout [UInt8], last: Bool = false) {
        buffer.append(0x5C)
        buffer.append(UInt8(ascii: "N"))
        buffer.append(last ? 0x0A : 0x09)
    }
}

/// Reads a whole `PGresult` by row and column.
struct PGRowReader {
    let result: OpaquePointer
    let count: Int32

    init?(_ result: OpaquePointer?) {
        guard let result else { return nil }
        self.result = result
        count = PQntuples(result)
    }

    func int64(_ row: Int32, _ column: Int32) -> Int64 {
        guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { return 0 }
        return PGRows.parseInteger(text)
    }

    func text(_ row: Int32, _ column: Int32) -> String? {
        guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { return nil }
        return String(cString: text)
    }
}

/// Frees a result from ``PGConnection/run(_:_:)``.
func PQclearResult(_ result: OpaquePointer) {
    PQclear(result)
}
