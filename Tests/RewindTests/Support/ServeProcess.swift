import Foundation
import RewindTestSupport

/// `rewind serve` as a child process (the binary built beside the tests).
final class ServeProcess: @unchecked Sendable {
    private var process: Subprocess!
    private let lock = NSLock()
    private var output = ""

    /// The built `rewind` binary: beside the test bundle, in `.build/<triple>/<config>/`.
    static let executable: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.pathExtension == "xctest" { directory = directory.deletingLastPathComponent() }
        for candidate in [directory, Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("rewind")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return directory.appendingPathComponent("rewind")
    }()

    /// Starts `rewind serve --port port --db log`, with `arguments` after those.
    init(port: Int, log: String, arguments: [String] = []) throws {
        process = try Subprocess(Self.executable.path, ["serve", "--port", "\(port)", "--db", log] + arguments,
                                 output: .pipe, error: .standardOutput)
        PipeReader.start(process.standardOutput!) { [weak self] data in
            let text = String(decoding: data, as: UTF8.self)
            guard let self else { return }
            self.lock.withLock { self.output += text }
        }
    }

    /// What it printed so far.
    var printed: String { lock.withLock { output } }
    /// `true` once it says where apps connect.
    var isListening: Bool { printed.contains("apps connect to") }

    /// Kills it with `signal` and waits until it has exited.
    func kill(_ signal: Int32) {
        guard process.isRunning else { return }
        process.signal(signal)
        process.waitUntilExit()
    }

    deinit {
        kill(SIGKILL)
    }
}

/// Runs the built `rewind` with `arguments` and returns its exit status.
func runRewind(_ arguments: [String]) throws -> Int32 {
    try Subprocess(ServeProcess.executable.path, arguments, output: .null, error: .null).waitUntilExit()
}
