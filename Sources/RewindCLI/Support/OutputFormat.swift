import Foundation
import RewindJSON

/// How query commands print times, durations, sizes and JSON lines.
enum OutputFormat {
    /// Local time with milliseconds (`2026-11-21 09:41:21.250`); `TZ` picks the zone.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter.string(from: date)
    }

    /// `850ns`, `12.5µs`, `3.2ms`, `1.25s`.
    static func duration(nanoseconds: Int64) -> String {
        let ns = Double(nanoseconds)
        switch nanoseconds {
        case ..<1_000: return "\(nanoseconds)ns"
        case ..<1_000_000: return String(format: "%.1fµs", ns / 1e3)
        case ..<1_000_000_000: return String(format: "%.1fms", ns / 1e6)
        default: return String(format: "%.2fs", ns / 1e9)
        }
    }

    /// `512 B`, `12.3 KB`, `4.5 MB`, `1.2 GB` (powers of 1,000).
    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        switch count {
        case ..<1_000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f KB", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }

    /// `12,345`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }

    /// A send site for JSON output: `{"file", "line", "function"}`, or null.
    static func site(file: String, line: Int, function: String) -> JSONValue {
        ["file": .string(file), "line": number(line), "function": .string(function)]
    }

    /// A number for JSON output.
    static func number(_ value: Double) -> JSONValue {
        JSONNumber(value).map(JSONValue.number) ?? .null
    }

    /// A number for JSON output.
    static func number<I: BinaryInteger>(_ value: I) -> JSONValue {
        .number(JSONNumber(Int64(value)))
    }

    /// Seconds since 1970, as stored in the log, to the microsecond (so that `1700000000.002`
    /// does not print as the nearest double's `1700000000.0019999`).
    static func seconds(_ date: Date) -> JSONValue {
        number((date.timeIntervalSince1970 * 1e6).rounded() / 1e6)
    }

    /// Compact JSON shortened to `width` characters with `…`, terminal controls escaped.
    static func shortened(_ value: JSONValue, width: Int = 60) -> String {
        let text = value.serialized(.terminal)
        return text.count > width ? String(text.prefix(width - 1)) + "…" : text
    }

    /// Lines of cells, each column padded to its widest cell (the last column is not padded).
    ///
    /// Every cell is escaped (``TerminalText/escaped(_:)``) but those of the `styled` columns,
    /// whose callers escaped what came from the app and added ANSI styles of their own.
    static func table(_ rows: [[String]], rightAligned: Set<Int> = [], styled: Set<Int> = []) -> String {
        let rows = rows.map { row in
            row.enumerated().map { index, cell in styled.contains(index) ? cell : TerminalText.escaped(cell) }
        }
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var out = ""
        for row in rows {
            var line = ""
            for (index, cell) in row.enumerated() {
                if index > 0 { line += "  " }
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                if rightAligned.contains(index) {
                    line += pad + cell
                } else {
                    line += index == row.count - 1 ? cell : cell + pad
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}

extension JSONWriteOptions {
    /// Compact, with every character a terminal could act on as a `\u` escape: the JSON the
    /// commands print (``JSONWriteOptions/escapesTerminalControls``).
    static let terminal = JSONWriteOptions(escapesTerminalControls: true)
    /// Pretty (two spaces), with every character a terminal could act on as a `\u` escape.
    static let terminalPretty = JSONWriteOptions(pretty: true, escapesTerminalControls: true)
}

/// One compact JSON value and a newline, terminal-safe (`--json` output).
func jsonLine(_ value: JSONValue) -> String {
    value.serialized(.terminal) + "\n"
}

/// Prints one compact JSON value per line (`--json` output), terminal-safe: it parses to the same
/// value, but no character of it can act on a terminal.
func writeJSONLine(_ value: JSONValue) {
    var bytes = value.serializedBytes(.terminal)
    bytes.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(Data(bytes))
}
