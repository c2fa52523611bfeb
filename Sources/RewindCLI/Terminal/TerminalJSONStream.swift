/// JSON text made safe for a terminal on its way out, chunk by chunk: `rewind export` writing to
/// a terminal. Every character ``TerminalText`` escapes, but for the JSON whitespace (tab,
/// newline, carriage return), is written as a JSON `\uXXXX` escape.
///
/// In valid JSON text those characters can only be inside strings (they are not JSON
/// whitespace, and C0 controls are escaped there already), where the escape stands for the same
/// character: the output is still valid JSON, with the same value. A scalar cut by the end of a
/// chunk is held until the next one.
struct TerminalJSONStream {
    /// The start of a multi-byte scalar that the last chunk ended in.
    private var carry: [UInt8] = []

    /// `chunk`'s text, escaped, less the bytes of a scalar it ends in the middle of.
    mutating func filter(_ chunk: [UInt8]) -> [UInt8] {
        var bytes = carry
        bytes += chunk
        carry = []
        // Walk back over continuation bytes to the lead byte of the last scalar.
        var start = bytes.count
        var continuations = 0
        while start > 0, continuations < 3, bytes[start - 1] & 0xC0 == 0x80 {
            start -= 1
            continuations += 1
        }
        if start > 0 {
            let lead = bytes[start - 1]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if length > continuations + 1 {
                carry = Array(bytes[(start - 1)...])
                bytes.removeSubrange((start - 1)...)
            }
        }
        return Self.escaped(bytes)
    }

    /// What is still held (a scalar the text ended in the middle of), escaped.
    mutating func finish() -> [UInt8] {
        defer { carry = [] }
        return carry.isEmpty ? [] : Self.escaped(carry)
    }

    /// `bytes` as UTF-8 (a broken sequence becomes U+FFFD) with the terminal controls escaped.
    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: escapes) else { return Array(text.utf8) }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard escapes(scalar) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
        }
        return Array(String(out).utf8)
    }

    /// What is escaped: what ``TerminalText`` escapes, but for JSON's whitespace.
    private static func escapes(_ scalar: Unicode.Scalar) -> Bool {
        TerminalText.needsEscape(scalar) && scalar != "\n" && scalar != "\t" && scalar != "\r"
    }
}
