import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWebSocket
import RewindWire
import RewindSupport
import RewindTestSupport

/// A WebSocket client speaking JSON to the server, recording what it receives.
final class JSONClient: WebSocketClientDelegate, @unchecked Sendable {
    struct State: Sendable {
        var connected = false
        var failed: String?
        var messages: [JSONValue] = []
        var eventCount = 0
        var closeCode: WebSocketCloseCode?
    }

    let state = Condition(State())
    let client: WebSocketClient
    /// Called on the service thread for each message, before it is recorded.
    var onMessage: (@Sendable (JSONValue, WebSocketConnection) -> Void)?

    init(port: Int, path: String, subprotocol: String, origin: String? = nil, headers: HTTPHeaders = [:], query: String = "") throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)\(path)\(query)", subprotocol: subprotocol, origin: origin, headers: headers)
    }

    static func app(port: Int, headers: HTTPHeaders = [:], query: String = "") throws -> JSONClient {
        let client = try JSONClient(port: port, path: AppMessage.path, subprotocol: AppMessage.subprotocol, headers: headers, query: query)
        try client.connect()
        return client
    }

    static func inspector(port: Int, origin: String? = nil) throws -> JSONClient {
        let client = try JSONClient(port: port, path: InspectorRequest.path, subprotocol: InspectorRequest.subprotocol, origin: origin)
        try client.connect()
        return client
    }

    /// Makes one round trip (`sessions`), so the server has registered this inspector.
    func ready() -> Bool {
        send(["type": "sessions", "id": 0])
        return waitForReply(id: 0) != nil
    }

    func connect() throws {
        try client.connect(delegate: self)
    }

    func didConnect(_ connection: WebSocketConnection) { state.update { $0.connected = true } }
    func didFailToConnect(reason: String) { state.update { $0.failed = reason } }
    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) { state.update { $0.closeCode = code } }
    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let json = try? JSONValue(parsing: message.bytes) else { return }
        onMessage?(json, connection)
        let isEvent = json["type"] == "event"
        state.update {
            $0.messages.append(json)
            if isEvent { $0.eventCount += 1 }
        }
    }

    func send(_ json: JSONValue) {
        _ = client.send(text: json.serialized(.compact))
    }

    /// Sends `json`, waiting while the connection's queue is full (the server pauses reading a
    /// connection that sends faster than it stores), so nothing is dropped on this side.
    func sendWaitingForRoom(_ json: JSONValue, timeout: Double = 120) {
        let text = json.serialized(.compact)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while client.send(text: text) == .queueFull, Date() < deadline {
            usleep(1_000)
        }
    }

    func sendRaw(_ text: String) {
        _ = client.send(text: text)
    }

    /// Waits for a message that `match` accepts and returns it.
    func waitFor(timeout: Double = 30, _ match: @escaping (JSONValue) -> Bool) -> JSONValue? {
        var found: JSONValue?
        state.wait(timeout: timeout) { state in
            found = state.messages.first(where: match)
            return found != nil
        }
        return found
    }

    func waitForReply(id: Int, timeout: Double = 30) -> JSONValue? {
        waitFor(timeout: timeout) { $0["id"] == .number(JSONNumber(id)) }
    }

    func messages(ofType type: String) -> [JSONValue] {
        state.value.messages.filter { $0["type"] == .string(type) }
    }

    var highestAck: Int64 {
        Self.highestAck(in: state.value)
    }

    static func highestAck(in state: State) -> Int64 {
        state.messages.filter { $0["type"] == "ack" }.compactMap { $0["seq"]?.int64 }.max() ?? -1
    }

    /// Waits until every event up to `seq` is acked.
    func waitForAck(_ seq: Int64, timeout: Double = 30) -> Bool {
        state.wait(timeout: timeout) { Self.highestAck(in: $0) >= seq }
    }

    func close() {
        client.close()
        _ = client.waitUntilFinished(timeout: .seconds(10))
    }
}

extension JSONValue {
    var int64: Int64? {
        guard case .number(let n) = self else { return nil }
        return n.int64Value
    }
}

/// An app's recording made by hand: each event adds an item and bumps a counter.
struct Recording {
    var state: JSONValue = ["count": 0, "items": []]

    /// The event with `seq` (seq 0 carries the initial state whole).
    mutating func event(_ seq: Int64, payload: String = "x") -> JSONValue {
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"], keyframe: state, hash: state.stableHash)).json
        }
        let patch: JSONValue = [
            ["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))],
            ["op": "add", "path": "/items/-", "value": ["n": .number(JSONNumber(seq)), "text": .string(payload)]],
        ]
        try! state.apply(JSONPatch(json: patch))
        return AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000, action: ["type": "add", "n": .number(JSONNumber(seq))],
                                          patch: patch, hash: state.stableHash, durationNs: 1_000, cause: seq > 1 ? seq - 1 : nil)).json
    }

    /// The event with `seq` > 0 that replaces `/last` with `payload`: the state stays small.
    mutating func replacing(_ seq: Int64, payload: String) -> JSONValue {
        let patch: JSONValue = [
            ["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))],
            ["op": "add", "path": "/last", "value": .string(payload)],
        ]
        try! state.apply(JSONPatch(json: patch))
        return AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000, action: ["type": "set", "n": .number(JSONNumber(seq))],
                                          patch: patch, hash: state.stableHash, durationNs: 1_000)).json
    }

    /// Events `range`, building the state as they go.
    mutating func events(_ range: Range<Int64>) -> [JSONValue] {
        range.map { event($0) }
    }
}

func hello(_ uuid: String, id: Int = 1) -> JSONValue {
    AppMessage.hello(AppMessage.Hello(id: .number(JSONNumber(id)), session: uuid, app: "Tests", version: "1", meta: ["host": "test"])).json
}

/// A server on a free port of 127.0.0.1 writing a log in a temporary folder.
final class ServerFixture: @unchecked Sendable {
    let folder: URL
    let server: RewindServer
    var logPath: String { server.configuration.logPath }
    var port: Int { server.port ?? 0 }

    init(configure: (inout RewindServerConfiguration) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = RewindServerConfiguration(logPath: folder.appendingPathComponent("rewind.db").path, port: 0)
        configure(&configuration)
        server = try RewindServer(configuration: configuration)
        try server.start()
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    func reader() throws -> LogReader {
        try LogReader(path: logPath)
    }

    /// Connects an app, says hello and waits for the welcome; returns the client and nextSeq.
    func helloApp(_ uuid: String) throws -> (JSONClient, Int64) {
        let app = try JSONClient.app(port: port)
        app.send(hello(uuid))
        guard let welcome = app.waitFor({ $0["type"] == "welcome" }), let next = welcome["nextSeq"]?.int64 else {
            throw FixtureError(description: "no welcome: \(app.state.value.messages)")
        }
        return (app, next)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}
