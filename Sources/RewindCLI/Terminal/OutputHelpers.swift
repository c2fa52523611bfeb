import Foundation
import RewindJSON

/// A change as JSON: `{"op":"add|remove|replace","path":…,"old":…,"new":…}` (no `old` for an
/// addition, no `new` for a removal).
func changeJSON(_ change: JSONChange) -> JSONValue {
    var o: JSONObject = ["path": .string(change.path.description)]
    switch change.kind {
    case .added: o["op"] = "add"
    case .removed: o["op"] = "remove"
    case .changed: o["op"] = "replace"
    }
    if let old = change.oldValue { o["old"] = old }
    if let new = change.newValue { o["new"] = new }
    return .object(o)
}

extension ANSI {
    static let bold = "\u{1B}[1m"
    static let dim = "\u{1B}[2m"
    static let reverse = "\u{1B}[7m"
}

/// The width of the terminal on standard output, or `nil` when it is not a terminal.
func terminalWidth() -> Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
}

/// Whether `text` matches the glob `pattern` (`*`, `?`, `[…]`; case-sensitive, `*` crosses `/`),
/// as the log's SQL GLOB does.
func globMatches(_ pattern: String, _ text: String) -> Bool {
    fnmatch(pattern, text, 0) == 0
}

/// Writes one line to standard error, escaped (``TerminalText/escaped(_:)``): its sentences quote
/// what apps and servers said.
func writeStandardError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalText.escaped(text) + "\n").utf8))
}
