import Foundation
import RewindTestSupport
import RewindJSON
import RewindWebSocket

/// An inspector on `/inspect` that keeps every JSON message and waits for the one it wants.
final class DemoInspector: WebSocketClientDelegate, @unchecked Sendable {
    private let condition = NSCondition()
    private var messages: [JSONValue] = []
    private var failure: String?
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
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = messages.first(where: predicate) { return found }
            if failure != nil || !condition.wait(until: deadline) { return messages.first(where: predicate) }
        }
    }

    /// Every message so far.
    var received: [JSONValue] {
        condition.lock()
        defer { condition.unlock() }
        return messages
    }

    func close() {
        client.close()
    }

    func didConnect(_ connection: WebSocketConnection) {}

    func didFailToConnect(reason: String) {
        condition.lock()
        failure = reason
        condition.broadcast()
        condition.unlock()
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let value = try? JSONValue(parsing: message.bytes) else { return }
        condition.lock()
        messages.append(value)
        condition.broadcast()
        condition.unlock()
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        condition.lock()
        failure = "closed"
        condition.broadcast()
        condition.unlock()
    }
}

/// A child process whose output (stdout and stderr together) is collected as it comes.
///
/// Spawned (by ``Subprocess``) with an empty signal mask and default signal handling: the test
/// runner's threads block most signals and Foundation's `Process` passes that mask on, so a shell
/// script started by it could never see the SIGINT the test sends (a Ctrl-C from a terminal does
/// reach it).
final class OutputProcess: @unchecked Sendable {
    private(set) var pid: pid_t = 0
    private let condition = NSCondition()
    private var output = ""
    private var status: Int32?
    /// The output pipe reached its end: every writer (the script and its children) closed it.
    private var outputEnded = false

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child = try Subprocess(executable, arguments, environment: env, output: .pipe, error: .standardOutput) { [self] code in
            condition.lock()
            status = code
            condition.broadcast()
            condition.unlock()
        }
        pid = child.pid
        let reader = child.standardOutput!
        startThread(named: "test-reader") { [self] in
            while true {
                let data = reader.availableData
                if data.isEmpty {
                    condition.lock()
                    outputEnded = true
                    condition.broadcast()
                    condition.unlock()
                    break
                }
                condition.lock()
                output += String(decoding: data, as: UTF8.self)
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return status == nil
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return output
    }

    /// Waits until `predicate` holds for the output so far (or `timeout` seconds pass).
    func waitForOutput(timeout: Double = 60, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(output) {
            if status != nil || !condition.wait(until: deadline) { return predicate(output) }
        }
        return true
    }

    /// Waits for the process to exit and its output to end (everything it and its children wrote
    /// has been read), and returns its status; `nil` if it has not exited within `timeout` seconds.
    func waitForExit(timeout: Double = 30) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while status == nil || !outputEnded {
            if !condition.wait(until: deadline) { break }
        }
        return status
    }
}
