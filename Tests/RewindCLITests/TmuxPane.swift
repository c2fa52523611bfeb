import Foundation
import RewindTestSupport

/// A detached tmux session on its own server socket running a shell script, for driving the
/// full-screen `rewind replay` like a user at a terminal.
final class TmuxPane {
    let socket = "rewind-test-\(UUID().uuidString.prefix(8))"
    let target = "replay"

    /// Starts `script` (a POSIX sh script) in a `columns`×`rows` window.
    init(script: String, in dir: TemporaryDirectory, columns: Int = 120, rows: Int = 40) throws {
        let path = try dir.file("script-\(socket).sh", contents: script)
        let result = try Self.tmux(["-L", socket, "new-session", "-d", "-s", target, "-x", String(columns), "-y", String(rows), "sh \(path)"])
        guard result.status == 0 else { throw TmuxFailure(message: "tmux new-session failed: \(result.text)") }
    }

    struct TmuxFailure: Error { var message: String }

    /// What a wait saw last, and whether its condition held.
    struct Capture {
        var lines: [String]
        var ok: Bool
    }

    /// What the pane shows now, one string per row.
    func capture() -> [String] {
        guard let result = try? Self.tmux(["-L", socket, "capture-pane", "-p", "-t", target]), result.status == 0 else { return [] }
        var lines = result.text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Polls the pane until `check` holds or `timeout` seconds pass; returns the last capture
    /// and whether it held.
    @discardableResult
    func wait(timeout: Double = 20, until check: ([String]) -> Bool) -> Capture {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var lines = capture()
        while !check(lines) {
            if Date() > deadline { return Capture(lines: lines, ok: false) }
            // A short pause between polls of the pane (the condition, not the pause, decides).
            usleep(30_000)
            lines = capture()
        }
        return Capture(lines: lines, ok: true)
    }

    /// Waits until some row contains `needle`.
    @discardableResult
    func wait(for needle: String, timeout: Double = 20) -> Capture {
        wait(timeout: timeout) { $0.contains { $0.contains(needle) } }
    }

    /// Types `keys` (tmux key names such as `j`, `Enter`, `C-c`, `Up`, or literal text with `literal`).
    func send(_ keys: [String], literal: Bool = false) {
        _ = try? Self.tmux(["-L", socket, "send-keys", "-t", target] + (literal ? ["-l"] : []) + keys)
    }

    func resize(columns: Int, rows: Int) {
        _ = try? Self.tmux(["-L", socket, "resize-window", "-t", target, "-x", String(columns), "-y", String(rows)])
    }

    /// Ends the pane's processes and the server. By pid, because `kill-server` was seen to
    /// leave the server running; the pane's shell leads its own process group.
    func kill() {
        guard let result = try? Self.tmux(["-L", socket, "display-message", "-p", "-t", target, "#{pid} #{pane_pid}"]) else { return }
        let pids = result.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        if pids.count == 2 {
            Foundation.kill(-pids[1], SIGKILL)
            Foundation.kill(pids[0], SIGKILL)
        }
        _ = try? Self.tmux(["-L", socket, "kill-server"])
        // A server killed outright leaves its socket file behind.
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(folder)/tmux-\(getuid())/\(socket)")
    }

    /// Runs `tmux arguments…` with posix_spawn and waits with waitpid. Not `Process`: it learns
    /// of the child's exit through a descriptor that the tmux server `new-session` forks would
    /// inherit, so it would wait for the server too. Output goes to a file for the same reason.
    static func tmux(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The tmux server that `new-session` forks outlives the test: it must not keep whatever
        // the test process has open (a port another test holds and then starts a server on).
        Subprocess.closeFrom3(&actions)
        let argv = (["tmux"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "tmux", &actions, nil, argv, environ)
        guard spawned == 0 else { throw TmuxFailure(message: "cannot run tmux: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WEXITSTATUS: the exit code sits in the second byte of the status.
        return ((status >> 8) & 0xFF, text)
    }
}
