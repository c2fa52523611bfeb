import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindTestSupport

/// `rewind serve` running as a child process, its output collected as it comes.
final class ServeProcess: @unchecked Sendable {
    private var process: Subprocess!
    private let condition = NSCondition()
    private var output = ""
    private var exited = false
    /// The output pipe's end has been read (the server and anything it started closed it).
    private var outputEnded = false

    /// `executable serve arguments…` (the built `rewind` by default), with `environment` (the
    /// test process's when `nil`) in `directory` (the current one when `nil`).
    init(_ arguments: [String], executable: String = CLIRunner.executable.path, environment: [String: String]? = nil,
         directory: String? = nil) throws {
        process = try Subprocess(executable, ["serve"] + arguments, environment: environment, directory: directory,
                                 output: .pipe, error: .standardOutput) { [weak self] _ in
            guard let self else { return }
            self.condition.lock()
            self.exited = true
            self.condition.broadcast()
            self.condition.unlock()
        }
        PipeReader.start(process.standardOutput!, onEnd: { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.outputEnded = true
            self.condition.broadcast()
            self.condition.unlock()
        }) { [weak self] data in
            guard let self, !data.isEmpty else { return }
            self.condition.lock()
            self.output += String(decoding: data, as: UTF8.self)
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return output
    }

    /// Waits until the output contains `needle` (or `timeout` seconds pass).
    func waitForOutput(_ needle: String, timeout: Double = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !output.contains(needle) {
            if !condition.wait(until: deadline) { return output.contains(needle) }
        }
        return true
    }

    /// The port from `apps connect to ws://127.0.0.1:PORT/app`.
    func port() -> Int? {
        guard waitForOutput("/app\n") else { return nil }
        let text = self.text
        guard let range = text.range(of: "ws://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits for the process to exit and its output to be read to the end; `nil` if it has not
    /// exited within `timeout` seconds.
    func waitForExit(timeout: Double = 20) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while !exited || !outputEnded {
            if !condition.wait(until: deadline) { break }
        }
        let done = exited
        condition.unlock()
        return done ? process.terminationStatus : nil
    }
}

/// A minimal app speaking `rewind.app.v1` directly: events that bump a counter.
final class StreamingApp: WebSocketClientDelegate, @unchecked Sendable {
    private let condition = NSCondition()
    private var acked: Int64 = -1
    private var nextSeq: Int64?
    private var closed = false
    let client: WebSocketClient

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/app", subprotocol: AppMessage.subprotocol)
        try client.connect(delegate: self)
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let reply = try? ServerToApp(frame: message.bytes) else { return }
        condition.lock()
        switch reply {
        case .welcome(_, _, let next, _): nextSeq = next
        case .ack(let seq): acked = max(acked, seq)
        default: break
        }
        condition.broadcast()
        condition.unlock()
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) { finish() }
    func didFailToConnect(reason: String) { finish() }

    private func finish() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    var highestAck: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return acked
    }

    /// Says hello and returns the seq the server expects next.
    func hello(session: String) -> Int64? {
        _ = client.send(text: AppMessage.hello(AppMessage.Hello(id: 1, session: session, app: "CLI test")).json.serialized(.compact))
        return wait { $0.nextSeq }
    }

    func waitForAck(_ seq: Int64, timeout: Double = 30) -> Bool {
        wait(timeout: timeout) { $0.acked >= seq ? true : nil } ?? false
    }

    /// Waits until the connection is gone.
    func waitForClose(timeout: Double = 20) -> Bool {
        wait(timeout: timeout) { $0.closed ? true : nil } ?? false
    }

    private func wait<T>(timeout: Double = 20, _ value: (StreamingApp) -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = value(self) { return result }
            if closed && nextSeq == nil { return nil }
            if !condition.wait(until: deadline) { return value(self) }
        }
    }

    /// Sends `event`; when the connection's queue is full (the server pauses reading an app
    /// that sends faster than it stores), waits until there is room, as a real app's sink would.
    func send(_ event: JSONValue) {
        let text = event.serialized(.compact)
        let deadline = Date(timeIntervalSinceNow: 120)
        while client.send(text: text) == .queueFull, Date() < deadline {
            usleep(1_000)
        }
    }

    /// Event `seq` of the counter recording (seq 0 is the keyframe).
    static func event(_ seq: Int64) -> JSONValue {
        let state: JSONValue = ["count": .number(JSONNumber(seq)), "note": "streamed"]
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"], keyframe: state, hash: state.stableHash)).json
        }
        return AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000, action: ["type": "increment"],
                                          patch: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))]],
                                          hash: state.stableHash)).json
    }
}
