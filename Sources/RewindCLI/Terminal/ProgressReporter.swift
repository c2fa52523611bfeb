import Foundation

/// A counter on standard error, redrawn in place with `\r`, for commands that take a while.
/// It exists only when standard error is a terminal, so logs and pipes never see it.
final class ProgressReporter {
    private let label: String
    private var lastDraw: UInt64 = 0
    private var drawn = false

    /// A reporter when standard error is a terminal, else `nil`.
    static func forTerminal(_ label: String) -> ProgressReporter? {
        isatty(STDERR_FILENO) == 1 ? ProgressReporter(label: label) : nil
    }

    private init(label: String) {
        self.label = label
    }

    /// Shows `done` (of `total`, when known) with `unit`, at most ten times a second.
    func update(_ done: Int, of total: Int? = nil, unit: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard !drawn || now - lastDraw >= 100_000_000 else { return }
        lastDraw = now
        drawn = true
        var text = "\r\(label): \(done)"
        if let total { text += " of \(total)" }
        text += " \(unit)\u{1B}[K"
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Shows a phase that has no count (`writing…`).
    func show(_ text: String) {
        drawn = true
        FileHandle.standardError.write(Data("\r\(label): \(TerminalText.escaped(text))\u{1B}[K".utf8))
    }

    /// Erases the counter, leaving the line for what comes next.
    func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
