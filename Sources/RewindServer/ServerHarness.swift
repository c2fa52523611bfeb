import Foundation
import RewindLog
import RewindWebSocket
import RewindWire

/// Drives the server's `/app` and `/inspect` handlers in-process, without sockets, on a log of
/// its own: the same code path a message from a connection takes, from the message on. The
/// fuzzer feeds it arbitrary bytes; what `rewind serve` adds on top (framing, UTF-8, sizes) is
/// libwebsockets' and the wrapper's, tested against real sockets.
package final class ServerHarness {
    private let core: ServerCore
    private var app: WebSocketConnection
    private var inspector: WebSocketConnection
    package let logPath: String

    /// A server core writing `logPath`, with limits small enough to keep each input quick.
    package init(logPath: String, maxStateSize: Int = 4 << 20) throws(LogError) {
        var configuration = RewindServerConfiguration(logPath: logPath, port: 0)
        configuration.maxStateSize = maxStateSize
        configuration.queryTimeBudget = 1
        self.logPath = logPath
        core = try ServerCore(configuration: configuration)
        app = .detached(path: AppMessage.path)
        inspector = .detached(path: InspectorRequest.path)
        core.didOpen(app)
        core.didOpen(inspector)
    }

    deinit {
        core.close()
    }

    /// Handles `bytes` as a message on the app connection; returns what the server sent back.
    /// A connection the server closes (too many errors in a row) is replaced by a new one.
    @discardableResult
    package func app(_ bytes: [UInt8]) -> [[UInt8]] {
        core.didReceive(.text(bytes), from: app)
        core.ingest.drain()
        // Stored and acked before the next input, as a committed batch would be: the writer
        // runs each batch's completion, which sends its ack (or its error) to the connection,
        // before it answers the flush.
        try? core.writer?.flush()
        let (messages, closing) = app.takeDetachedOutput()
        if closing {
            core.didClose(app, code: .policyViolation)
            core.ingest.drain()
            app = .detached(path: AppMessage.path)
            core.didOpen(app)
        }
        return messages
    }

    /// Handles `bytes` as a message on the inspector connection and waits (at most `timeout`
    /// seconds) until it is answered or handed on; returns what the server sent back.
    @discardableResult
    package func inspect(_ bytes: [UInt8], timeout: Double = 5) -> [[UInt8]] {
        core.didReceive(.text(bytes), from: inspector)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while core.queries.unsettled(for: inspector) > 0, Date() < deadline {
            usleep(200)
        }
        let (messages, closing) = inspector.takeDetachedOutput()
        if closing {
            core.didClose(inspector, code: .policyViolation)
            inspector = .detached(path: InspectorRequest.path)
            core.didOpen(inspector)
        }
        return messages
    }
}
