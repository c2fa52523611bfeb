import Foundation
import RewindSupport
import RewindTestSupport
import RewindJSON
import RewindWebSocket

/// An inspector on `/inspect` that keeps every JSON message and waits for the one it wants.
final class DemoInspector: WebSocketClientDelegate, Sendable {
    private struct Received: Sendable {
        var messages: [JSONValue] = []
        var failure: String?
    }

    private let received_ = Condition(Received())
    private let client: WebSocketClient

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/inspect", subprotocol: "rewind.inspect.v1")
        try client.connect(delegate: self)
    }

    func send(_ request: JSONValue) {
        _ = client.send(text: request.serialized(.compact))
    }

    /// The first message `predicate` accepts, once it arrived; `nil` after `timeout` seconds.
    func wait(timeout: Double = 60, for predicate: (JSONValue) -> Bool) -> JSONValue? {
        var found: JSONValue?
        _ = received_.wait(timeout: timeout) { state in
            found = state.messages.first(where: predicate)
            return found != nil || state.failure != nil
        }
        return found
    }

    /// Every message so far.
    var received: [JSONValue] { received_.value.messages }

    func close() {
        client.close()
    }

    func didConnect(_ connection: WebSocketConnection) {}

    func didFailToConnect(reason: String) {
        received_.update { $0.failure = reason }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let value = try? JSONValue(parsing: message.bytes) else { return }
        received_.update { $0.messages.append(value) }
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        received_.update { $0.failure = "closed" }
    }
}

/// A child process whose output (stdout and stderr together) is collected as it comes.
///
/// Spawned (by ``Subprocess``) with an empty signal mask and default signal handling: the test
/// runner's threads block most signals and Foundation's `Process` passes that mask on, so a shell
/// script started by it could never see the SIGINT the test sends (a Ctrl-C from a terminal does
/// reach it).
final class OutputProcess: Sendable {
    private struct Seen: Sendable {
        var output = ""
        var status: Int32?
        /// The output pipe reached its end: every writer (the script and its children) closed it.
        var outputEnded = false
    }

    let pid: pid_t
    private let seen = Condition(Seen())

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let seen = self.seen
        let child = try Subprocess(executable, arguments, environment: env, output: .pipe, error: .standardOutput) { code in
            seen.update { $0.status = code }
        }
        pid = child.pid
        let reader = child.standardOutput!
        startThread(named: "test-reader") {
            while true {
                let data = reader.availableData
                if data.isEmpty {
                    seen.update { $0.outputEnded = true }
                    break
                }
                seen.update { $0.output += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    var isRunning: Bool { seen.value.status == nil }

    var text: String { seen.value.output }

    /// Waits until `predicate` holds for the output so far (or `timeout` seconds pass).
    func waitForOutput(timeout: Double = 60, _ predicate: (String) -> Bool) -> Bool {
        var holds = false
        _ = seen.wait(timeout: timeout) { state in
            holds = predicate(state.output)
            return holds || state.status != nil
        }
        return holds
    }

    /// Waits for the process to exit and its output to end (everything it and its children wrote
    /// has been read), and returns its status; `nil` if it has not exited within `timeout` seconds.
    func waitForExit(timeout: Double = 30) -> Int32? {
        _ = seen.wait(timeout: timeout) { $0.status != nil && $0.outputEnded }
        return seen.value.status
    }
}
