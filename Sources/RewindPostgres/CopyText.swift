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

/// COPY's binary format: a header, then each row as its field count and each field as its
/// length (-1 for NULL) and its bytes in the column type's binary form (integers and floats
/// big-endian, text as its UTF-8), then -1. PostgreSQL reads it without parsing text or
/// unescaping it (for the events' rows, about 2.5 µs a row less than the text format).
package enum CopyBinary {
    /// `PGCOPY\n\xFF\r\n\0`, no flags, no header extension.
    package static func header(_ buffer: inout [UInt8]) {
        buffer.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
        append(Int32(0), &buffer)
        append(Int32(0), &buffer)
    }

    package static func trailer(_ buffer: inout [UInt8]) {
        append(Int16(-1), &buffer)
    }

    package static func row(fields: Int16, _ buffer: inout [UInt8]) {
        append(fields, &buffer)
    }

    /// A `bigint`.
    package static func field(_ value: Int64, _ buffer: inout [UInt8]) {
        append(Int32(8), &buffer)
        append(value, &buffer)
    }

    /// An `integer`.
    package static func field(_ value: Int32, _ buffer: inout [UInt8]) {
        append(Int32(4), &buffer)
        append(value, &buffer)
    }

    /// A `double precision`.
    package static func field(_ value: Double, _ buffer: inout [UInt8]) {
        append(Int32(8), &buffer)
        append(value.bitPattern, &buffer)
    }

    /// A `text`: its UTF-8, U+0000 made U+FFFD as in ``CopyText/field(_:_:last:)-([UInt8])``.
    package static func text(_ bytes: [UInt8], _ buffer: inout [UInt8]) {
        guard bytes.contains(0) else {
            append(Int32(bytes.count), &buffer)
            buffer.append(contentsOf: bytes)
            return
        }
        var replaced: [UInt8] = []
        replaced.reserveCapacity(bytes.count + 8)
        for byte in bytes {
            if byte == 0 { replaced.append(contentsOf: [0xEF, 0xBF, 0xBD]) } else { replaced.append(byte) }
        }
        append(Int32(replaced.count), &buffer)
        buffer.append(contentsOf: replaced)
    }

    /// A field already in its type's binary form (a `tsvector`'s).
    package static func raw(_ bytes: [UInt8], _ buffer: inout [UInt8]) {
        append(Int32(bytes.count), &buffer)
        buffer.append(contentsOf: bytes)
    }

    package static func null(_ buffer: inout [UInt8]) {
        append(Int32(-1), &buffer)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, _ buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
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
