import Foundation

/// The write end of the self-pipe signal handlers write to; a global because a C signal handler
/// cannot capture context. Set once before the handlers are installed, then only read.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: one write(2) of the signal's number to the self-pipe, nothing else.
private func forwardSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
}

/// The terminal in raw mode on the alternate screen, for the full-screen `rewind replay`.
///
/// Signals (SIGWINCH, SIGINT, SIGTERM, SIGHUP) are turned into bytes on a self-pipe by a handler
/// that only calls write(2), so the main loop sees them in `poll` and restores the terminal
/// itself: nothing that is not async-signal-safe runs in a handler.
final class RawTerminal {
    private var saved = termios()
    private var active = false
    /// The signals forwarded to the self-pipe while the screen is up.
    private static let forwarded = [SIGWINCH, SIGINT, SIGTERM, SIGHUP]
    /// The actions those signals had before, put back by `restore()`.
    private var previousActions: [Int32: sigaction] = [:]
    /// Read end of the self-pipe: one byte per signal, the signal's number.
    let signalFD: Int32
    private let writeFD: Int32

    /// Enters raw mode and the alternate screen; throws when standard input is not a terminal.
    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError("cannot create a pipe for signals: \(String(cString: strerror(errno)))") }
        signalFD = fds[0]
        writeFD = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CLIError("cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        var raw = saved
        // No echo, no line editing, no signal keys (Ctrl-C arrives as a byte), no CR/LF mapping.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            let reason = String(cString: strerror(errno))
            // The handlers are not installed yet: a failure here leaves SIGINT and SIGTERM as they
            // were (deinit closes the pipe: every stored property is set by now).
            throw CLIError("cannot put the terminal in raw mode: \(reason)")
        }
        // Only once raw mode is on: from here on `restore()` undoes both.
        signalPipeWriteEnd = writeFD
        for number in Self.forwarded {
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = forwardSignal
            #else
            action.__sigaction_u.__sa_handler = forwardSignal
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var previous = sigaction()
            if sigaction(number, &action, &previous) == 0 { previousActions[number] = previous }
        }
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Back to cooked mode, the main screen and a visible cursor; safe to call twice.
    func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        // Back to what the signals did before (not SIG_DFL: the caller may have had its own).
        for (number, previous) in previousActions {
            var previous = previous
            _ = sigaction(number, &previous, nil)
        }
        previousActions.removeAll()
    }

    deinit {
        restore()
        close(signalFD)
        close(writeFD)
    }

    /// Rows and columns of the terminal (24×80 when it cannot say).
    var size: (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Writes `text` whole to standard output.
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// What woke the loop.
    enum Wake {
        case input([UInt8])
        case signal(Int32)
        case timeout
        case endOfInput
    }

    /// Waits for input or a signal, at most `timeoutMs` (-1: no limit).
    func wait(timeoutMs: Int32) -> Wake {
        var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, timeoutMs)
        if ready < 0 { return errno == EINTR ? wait(timeoutMs: 0) : .endOfInput }
        if ready == 0 { return .timeout }
        if fds[0].revents & Int16(POLLIN) != 0 {
            var byte: UInt8 = 0
            if read(signalFD, &byte, 1) == 1 { return .signal(Int32(byte)) }
        }
        if fds[1].revents & Int16(POLLIN | POLLHUP) != 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 { return count < 0 && errno == EINTR ? .timeout : .endOfInput }
            return .input(Array(buffer[0..<count]))
        }
        return .timeout
    }
}
