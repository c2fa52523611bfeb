import Foundation
import RewindLog
import RewindReplay

/// The full-screen `rewind replay` loop: reads keys and signals, updates the browser, redraws.
///
/// The terminal is restored on every way out: `q`, Ctrl-C (a byte in raw mode), SIGINT/SIGTERM/
/// SIGHUP from elsewhere (through the self-pipe), and an error while reading the log, which is
/// rethrown after the restore so its sentence lands on the normal screen.
enum ReplayInteractive {
    static func run(events: [LogEvent], title: String, timeline: Timeline) throws {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        var browser = ReplayBrowser(events: events, sessionTitle: title)
        var screen = ReplayScreen(timeline: timeline)
        var size = terminal.size
        while !browser.quit {
            browser.pageSize = max(1, size.rows - 4)
            do {
                terminal.write(try screen.frame(browser, rows: size.rows, columns: size.columns))
            } catch {
                terminal.restore()
                throw error
            }
            let timeout: Int32 = browser.playing ? Int32(1000 / browser.speed) : -1
            switch terminal.wait(timeoutMs: timeout) {
            case .input(let bytes):
                for key in ReplayKey.parse(bytes) { browser.press(key) }
            case .signal(SIGWINCH):
                size = terminal.size
                terminal.write("\u{1B}[2J")
            case .signal:
                browser.quit = true
            case .timeout:
                browser.tick()
            case .endOfInput:
                browser.quit = true
            }
        }
    }
}
