import RewindJSON

/// Text bound for a terminal (or a pipe read by one): control characters made visible, and widths
/// counted in terminal columns rather than Characters.
///
/// The one escaping rule of every human-readable output of `rewind`: every string that came from
/// an app, a log, a file or the wire goes through ``escaped(_:)`` before it is printed, to
/// standard output or standard error. What is escaped is what a terminal may act on instead of
/// showing (``JSONWriteOptions/isTerminalControl(_:)``): the C0 controls, DEL, the C1 controls
/// (U+009B is a one-byte CSI, U+0085 a line break) and the Unicode bidirectional formatting
/// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder the text
/// around them. JSON output escapes the same characters as JSON `\u` escapes instead
/// (``JSONWriteOptions/escapesTerminalControls``).
///
/// Escapes: newline `\n`, carriage return `\r`, tab `\t`, ESC `\e`; every other one as `\u`
/// and four lowercase hex digits, e.g. `\u0007`, `\u009b`, `\u202e`. A backslash already in the
/// text is left as it is.
enum TerminalText {
    /// `text` with its control characters replaced by visible escapes, so what an app recorded
    /// (an action type, an app name) cannot move the cursor, clear the screen, retitle the
    /// window, break a line or reorder what follows it.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(out)
    }

    /// `text` escaped as ``escaped(_:)`` does, but for its newlines, which stay line breaks: for
    /// messages of several lines (ArgumentParser's).
    static func escapedLines(_ text: String) -> String {
        // Split by scalars: "\r\n" is one Character, and its "\r" must be escaped too.
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { escaped(String(String.UnicodeScalarView($0))) }.joined(separator: "\n")
    }

    /// The visible form of one character that ``needsEscape(_:)``.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x1B: return "\\e"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: false)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Whether `scalar` must not reach a terminal as it is: a C0 or C1 control, DEL, or a
    /// bidirectional formatting character.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        JSONWriteOptions.isTerminalControl(scalar)
    }

    /// The columns `text` takes on a terminal: East Asian wide characters and emoji count 2,
    /// combining marks and zero-width characters 0, everything else 1.
    static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The columns one Character (grapheme cluster) takes.
    static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji, or a text symbol turned emoji by variation selector 16, is drawn two wide.
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if first.properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if isWide(first) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// CJK, Hangul, fullwidth forms and the other East Asian wide blocks.
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` columns with `…` when it is longer, and padded with spaces
    /// to exactly `columns` when `pad`.
    static func fit(_ text: String, _ columns: Int, pad: Bool = false) -> String {
        guard columns > 0 else { return "" }
        var total = 0
        var cut: String.Index?
        var widthAtCut = 0
        for index in text.indices {
            let next = total + width(of: text[index])
            // The last place a `…` (one column) still fits after.
            if next <= columns - 1 {
                widthAtCut = next
            } else if cut == nil {
                cut = index
            }
            total = next
        }
        if total > columns, let cut {
            let shown = String(text[..<cut]) + "…"
            return pad ? shown + String(repeating: " ", count: max(0, columns - widthAtCut - 1)) : shown
        }
        return pad ? text + String(repeating: " ", count: columns - total) : text
    }
}
