import RewindJSON

/// Renders a diff for people: one line per change, `~ path: old → new`, `+ path: new`,
/// `- path: old`, values in compact JSON shortened to a readable width.
struct ChangeRenderer {
    /// Values longer than this many characters are cut with `…`.
    var maxValueLength = 80
    var colored = false

    func render(_ changes: [JSONChange]) -> String {
        var out = ""
        for change in changes {
            out += line(change)
            out += "\n"
        }
        return out
    }

    func line(_ change: JSONChange) -> String {
        // A key may hold control characters: shown escaped, never sent to the terminal.
        let path = change.path.isRoot ? "\"\"" : TerminalText.escaped(change.path.description)
        let (sign, color, text): (String, String, String)
        switch change.kind {
        case .added: (sign, color, text) = ("+", ANSI.green, "\(path): \(value(change.newValue))")
        case .removed: (sign, color, text) = ("-", ANSI.red, "\(path): \(value(change.oldValue))")
        case .changed: (sign, color, text) = ("~", ANSI.yellow, "\(path): \(value(change.oldValue)) → \(value(change.newValue))")
        }
        return colored ? "\(color)\(sign) \(text)\(ANSI.reset)" : "\(sign) \(text)"
    }

    private func value(_ value: JSONValue?) -> String {
        let text = TerminalText.escaped(value?.serialized(.terminal) ?? "")
        guard text.count > maxValueLength else { return text }
        return String(text.prefix(maxValueLength - 1)) + "…"
    }
}

extension JSONPatch {
    /// The patch as JSON with one operation per line: valid JSON that reads well in a terminal
    /// (terminal controls in keys and values as `\u` escapes).
    var lineByLineText: String {
        guard !operations.isEmpty else { return "[]\n" }
        return "[\n" + operations.map { "  " + $0.json.serialized(.terminal) }.joined(separator: ",\n") + "\n]\n"
    }
}
