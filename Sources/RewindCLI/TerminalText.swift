/// Text bound for a terminal (or a pipe read by one): control characters made visible, and widths
/// counted in terminal columns rather than Characters.
///
/// Escapes: newline `\n`, carriage return `\r`, tab `\t`, ESC `\e`; every other C0 control
/// (U+0000–U+001F), DEL (U+007F) and C1 control (U+0080–U+009F) as `\u` and four hex digits,
/// e.g. `\u0007`. A backslash already in the text is left as it is.
enum TerminalText {
    /// `text` with its control characters replaced by visible escapes, so what an app recorded
    /// (an action type, an app name) cannot move the cursor, clear the screen or break a line.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar.value {
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x1B: escape = "\\e"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// Whether `scalar` is a C0 or C1 control character or DEL.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
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
