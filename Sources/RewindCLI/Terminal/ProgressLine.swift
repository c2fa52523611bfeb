import Foundation

/// A progress line on standard error, redrawn in place, only when standard error is a terminal
/// (never in a pipe or a log file); at most ten redraws a second.
final class ProgressLine {
    let enabled: Bool
    private var lastDraw = 0.0
    private var drawn = false

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
    }

    /// Shows `text`, unless the last redraw was under 0.1 s ago and `force` is not set.
    func update(_ text: String, force: Bool = false) {
        guard enabled else { return }
        let now = Date().timeIntervalSinceReferenceDate
        guard force || now - lastDraw >= 0.1 else { return }
        lastDraw = now
        drawn = true
        FileHandle.standardError.write(Data("\r\u{1B}[K\(TerminalText.escaped(text))".utf8))
    }

    /// Erases the line, so what is printed next starts clean.
    func clear() {
        guard enabled, drawn else { return }
        drawn = false
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
