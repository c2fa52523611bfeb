import ArgumentParser
import Foundation

/// When to colour output: `auto` colours only a terminal, and not when `NO_COLOR` is set.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    /// Whether output to standard output should carry ANSI colours.
    var enabled: Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        }
    }
}

/// ANSI styles for terminal output.
enum ANSI {
    static let red = "\u{1B}[31m"
    static let green = "\u{1B}[32m"
    static let yellow = "\u{1B}[33m"
    static let reset = "\u{1B}[0m"
}

/// Writes text to standard output as UTF-8, unbuffered by Swift's `print`, as it is: for text
/// whose parts from an app were escaped when it was put together (coloured output, whose ANSI
/// styles must go through).
func writeStandardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Writes plain text to standard output with everything but its line breaks escaped
/// (``TerminalText/escapedLines(_:)``): for sentences and lists that carry no styles of their
/// own. Its line breaks are kept, so whatever an app, a log or a server said goes in through
/// `\(shown:)`, which escapes its line breaks too: one of theirs would start a line the command
/// never wrote (an app named "x\nsession 9: ok" forging a line of `rewind verify`).
func writeEscapedOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(TerminalText.escapedLines(text).utf8))
}

extension DefaultStringInterpolation {
    /// Text an app, a log or a server chose, for one line of a terminal: every control character
    /// escaped, line breaks included (``TerminalText/escaped(_:)``).
    mutating func appendInterpolation<Text: StringProtocol>(shown text: Text) {
        appendLiteral(TerminalText.escaped(String(text)))
    }
}
