import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire

/// What reaches a command's main loop: a message from the server, the end of a connection, or a
/// signal. Everything is posted to one ``Mailbox`` so a single thread handles it in order.
enum Delivery {
    /// A parsed message of connection `generation`.
    case message(JSONObject, generation: Int)
    /// Connection `generation` ended (`reason` in words) or never came about.
    case lost(reason: String, generation: Int, connected: Bool)
    /// SIGINT or SIGTERM: stop cleanly.
    case interrupted
}

/// A queue of ``Delivery`` values filled from the WebSocket and signal threads and drained by
/// the main loop.
final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Delivery] = []
    private var interrupted = false

    func post(_ delivery: Delivery) {
        condition.lock()
        if case .interrupted = delivery { interrupted = true }
        items.append(delivery)
        condition.broadcast()
        condition.unlock()
    }

    /// The next delivery, or `nil` when `deadline` passes first (`nil`: wait as long as it
    /// takes). An interrupt jumps the queue.
    func next(until deadline: Date?) -> Delivery? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !interrupted {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                // Not wait(until: .distantFuture): Foundation on Linux traps on that deadline.
                condition.wait()
            }
        }
        if interrupted { return .interrupted }
        return items.isEmpty ? nil : items.removeFirst()
    }

    /// Stops the process's default handling of SIGINT and SIGTERM and posts ``Delivery/interrupted``
    /// instead; keep the returned sources alive.
    func catchInterrupts() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.post(.interrupted) }
            source.resume()
            return source
        }
    }
}

/// One inspector connection (`rewind.inspect.v1`) that posts what it receives to a ``Mailbox``.
final class InspectorLink: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    let generation: Int
    private let mailbox: Mailbox
    private let lock = NSLock()
    private var connected = false

    /// Starts connecting to `url` (`ws://HOST:PORT/inspect`) with `token` as a bearer token.
    init(url: String, token: String?, mailbox: Mailbox, generation: Int) throws {
        var headers: HTTPHeaders = [:]
        if let token { headers.set("Authorization", "Bearer \(token)") }
        do {
            client = try WebSocketClient(url: url, subprotocol: InspectorRequest.subprotocol, headers: headers)
        } catch {
            throw CLIError("--server: \(error.description) (write ws://HOST:PORT/inspect)", code: 2)
        }
        self.mailbox = mailbox
        self.generation = generation
        do {
            try client.connect(delegate: self)
        } catch {
            throw CLIError("cannot connect to \(url): \(error.description)", code: 1)
        }
    }

    func send(_ request: InspectorRequest) {
        _ = client.send(text: request.json.serialized(.compact))
    }

    func close() {
        client.close(code: .normal)
    }

    func didConnect(_ connection: WebSocketConnection) {
        lock.withLock { connected = true }
    }

    func didFailToConnect(reason: String) {
        mailbox.post(.lost(reason: reason, generation: generation, connected: false))
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard case .object(let object)? = try? JSONValue(parsing: message.bytes) else { return }
        mailbox.post(.message(object, generation: generation))
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        mailbox.post(.lost(reason: "closed with \(code)", generation: generation, connected: lock.withLock { connected }))
    }
}

/// `--server` and `--token`, shared by the commands that talk to `rewind serve` as an inspector.
struct ServerLocation {
    static let defaultURL = "ws://127.0.0.1:7433/inspect"

    /// The inspector URL: a bare `ws://HOST:PORT` gets `/inspect`; `http://` is read as `ws://`.
    static func inspectorURL(_ text: String) throws -> String {
        var url = text
        if url.hasPrefix("http://") { url = "ws://" + url.dropFirst("http://".count) }
        guard url.hasPrefix("ws://") else {
            throw CLIError("--server '\(text)' is not a ws:// URL (write ws://HOST:PORT/inspect)", code: 2)
        }
        let rest = url.dropFirst("ws://".count)
        if !rest.contains("/") { url += InspectorRequest.path }
        return url
    }

    /// `--token`, else `$REWIND_TOKEN` (an empty value counts as none).
    static func token(_ explicit: String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        let fromEnvironment = ProcessInfo.processInfo.environment["REWIND_TOKEN"]
        return fromEnvironment.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension JSONObject {
    /// The integer member `key`, if it is one.
    func int64(_ key: String) -> Int64? {
        if case .number(let number)? = self[key] { return number.int64Value }
        return nil
    }

    /// The string member `key`, if it is one.
    func string(_ key: String) -> String? {
        if case .string(let text)? = self[key] { return text }
        return nil
    }
}
