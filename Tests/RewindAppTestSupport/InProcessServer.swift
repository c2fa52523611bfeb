import Foundation
import RewindServer

/// `rewind serve` in the test process, on a log at `log`, listening on a free port: where a
/// test's app streams. Stopped with the value's ``stop()``.
public final class InProcessServer: Sendable {
    /// The log it writes.
    public let log: String
    public let server: RewindServer

    /// Starts a server on `log`; `configure` sets anything else (a command timeout, tokens).
    public init(log: String, _ configure: (inout RewindServerConfiguration) -> Void = { _ in }) throws {
        self.log = log
        var configuration = RewindServerConfiguration(logPath: log, port: 0)
        configure(&configuration)
        server = try RewindServer(configuration: configuration)
        try server.start()
    }

    /// Where apps connect (`ws://127.0.0.1:PORT`).
    public var url: URL { URL(string: "ws://127.0.0.1:\(server.port ?? 0)")! }

    public func stop() { server.shutdown() }
}
