import Foundation
import RewindSupport

/// `rewind serve` as a child process (the binary built beside the tests, unless told otherwise),
/// its output collected as it comes. A server still running when the value goes away is killed.
public final class ServeProcess: @unchecked Sendable {
    private struct Output {
        var text = ""
        /// The output pipe's end has been read (the server and anything it started closed it).
        var ended = false
    }

    private let process: Subprocess
    private let output = Condition(Output())

    /// `executable serve arguments…` (the built `rewind` by default), with `environment` (the
    /// test process's when `nil`) in `directory` (the current one when `nil`).
    /// With a `launcher` (`["/usr/bin/prlimit", "--nofile=1024:20000"]`), the launcher runs with
    /// `executable serve arguments…` after its own arguments, and execs it.
    public init(_ arguments: [String], executable: String = BuiltExecutable.rewind.path, environment: [String: String]? = nil,
                directory: String? = nil, launcher: [String] = []) throws {
        let command = launcher.isEmpty ? (executable, ["serve"] + arguments)
            : (launcher[0], Array(launcher.dropFirst()) + [executable, "serve"] + arguments)
        process = try Subprocess(command.0, command.1, environment: environment, directory: directory,
                                 output: .pipe, error: .standardOutput)
        PipeReader.start(process.standardOutput!, onEnd: { [output] in
            output.update { $0.ended = true }
        }) { [output] data in
            let text = String(decoding: data, as: UTF8.self)
            output.update { $0.text += text }
        }
    }

    /// `rewind serve --port port --db log`, with `arguments` after those.
    public convenience init(port: Int, log: String, arguments: [String] = []) throws {
        try self.init(["--port", "\(port)", "--db", log] + arguments)
    }

    deinit {
        kill(SIGKILL)
    }

    /// What it printed so far.
    public var text: String { output.withLock { $0.text } }

    /// Whether it has said where apps connect.
    public var isListening: Bool { text.contains("apps connect to") }

    /// Waits until the output contains `needle` (or `timeout` seconds pass).
    public func waitForOutput(_ needle: String, timeout: Double = 20) -> Bool {
        output.wait(for: { $0.text.contains(needle) }, deadline: MonotonicClock.deadline(after: timeout))
    }

    /// The port from `apps connect to ws://127.0.0.1:PORT/app` (or `wss://`, with TLS), said as a
    /// line or as a JSON log's message (`--log-format json`).
    public func port(timeout: Double = 20) -> Int? {
        guard output.wait(for: { $0.text.contains("/app\n") || $0.text.contains("/app\"") },
                          deadline: MonotonicClock.deadline(after: timeout)) else { return nil }
        let text = self.text
        guard let range = text.range(of: "ws://127.0.0.1:") ?? text.range(of: "wss://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The process id (the server's own: a launcher execs it).
    public var pid: pid_t { process.pid }

    public func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Sends `signal` and waits until it has exited, however long that takes.
    public func kill(_ signal: Int32) {
        guard process.isRunning else { return }
        process.signal(signal)
        process.waitUntilExit()
    }

    /// Waits for the process to exit and its output to be read to the end; `nil` if it has not
    /// exited within `timeout` seconds.
    public func waitForExit(timeout: Double = 20) -> Int32? {
        let deadline = MonotonicClock.deadline(after: timeout)
        guard let status = process.waitForExit(timeout: timeout) else { return nil }
        _ = output.wait(for: { $0.ended }, deadline: deadline)
        return status
    }
}

/// Runs the built `rewind` with `arguments` and returns its exit status.
public func runRewind(_ arguments: [String]) throws -> Int32 {
    try Subprocess(BuiltExecutable.rewind.path, arguments, output: .null, error: .null).waitUntilExit()
}
