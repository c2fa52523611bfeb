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

/// Writes text to standard output as UTF-8, unbuffered by Swift's `print`.
func writeStandardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
