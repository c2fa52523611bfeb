import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire

/// An app for the benchmarks: sends frames, keeping at most `window` unacked.
final class BenchApp: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    private let condition = NSCondition()
    private var acked: Int64 = -1
    private var welcomed = false
    /// When each seq was handed to the client, and how long its ack took (seconds); an ack
    /// covers every seq up to its own.
    private var sentAt: [Double] = []
    private var ackDelays: [Double] = []

    init(port: Int) throws {
        var configuration = WebSocketClientConfiguration(url: "ws://127.0.0.1:\(port)/app", subprotocol: AppMessage.subprotocol)
        configuration.queueLimits = WebSocketQueueLimits(maxMessages: 50_000, maxBytes: 256 << 20)
        client = try WebSocketClient(configuration: configuration)
        try client.connect(delegate: self)
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let reply = try? ServerToApp(frame: message.bytes) else { return }
        condition.lock()
        switch reply {
        case .welcome: welcomed = true
        case .ack(let seq):
            let now = Measure.now()
            if seq > acked, !sentAt.isEmpty {
                for covered in (acked + 1)...min(seq, Int64(sentAt.count) - 1) {
                    ackDelays.append(now - sentAt[Int(covered)])
                }
            }
            acked = max(acked, seq)
        default: break
        }
        condition.broadcast()
        condition.unlock()
    }

    func hello() throws {
        _ = client.send(text: AppMessage.hello(AppMessage.Hello(id: 1, session: UUID().uuidString, app: "bench")).json.serialized(.compact))
        condition.lock()
        defer { condition.unlock() }
        while !welcomed {
            guard condition.wait(until: Date(timeIntervalSinceNow: 10)) else { throw BenchFailure("no welcome") }
        }
    }

    func send(_ frame: [UInt8], window: Int64, seq: Int64) {
        condition.lock()
        while seq - acked > window { _ = condition.wait(until: Date(timeIntervalSinceNow: 1)) }
        if Int(seq) == sentAt.count { sentAt.append(Measure.now()) }
        condition.unlock()
        _ = client.connection.send(textBytes: frame)
    }

    /// The delays from handing each event to the client to its ack, in seconds, sorted.
    var sortedAckDelays: [Double] {
        condition.lock()
        defer { condition.unlock() }
        return ackDelays.sorted()
    }

    func waitForAck(_ seq: Int64) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: 120)
        while acked < seq, condition.wait(until: deadline) {}
    }

    func close() {
        client.close()
        _ = client.waitUntilFinished(timeout: .seconds(10))
    }
}

/// An inspector subscribed to every session, noting each stamped event's delay.
final class BenchInspector: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    private let condition = NSCondition()
    private var latencies: [Double] = []
    private var received = 0
    private var sawLag = false

    /// The server said this inspector fell behind (a `lagged` push).
    var lagged: Bool {
        condition.lock()
        defer { condition.unlock() }
        return sawLag
    }

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/inspect", subprotocol: InspectorRequest.subprotocol)
        try client.connect(delegate: self)
        _ = client.send(text: #"{"type":"subscribe","id":1,"session":"*"}"#)
        condition.lock()
        defer { condition.unlock() }
        while received == 0 {
            guard condition.wait(until: Date(timeIntervalSinceNow: 10)) else { throw BenchFailure("no subscribe reply") }
        }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        let now = DispatchTime.now().uptimeNanoseconds
        // The stamp is read straight from the bytes, so the inspectors' own parsing does not
        // count against the server.
        let delay = Self.stamp(in: message.bytes).map { Double(Int64(now) - $0) / 1e9 }
        let lag = delay == nil && message.bytes.count < 400 && String(decoding: message.bytes, as: UTF8.self).contains(#""type":"lagged""#)
        condition.lock()
        received += 1
        if let delay { latencies.append(delay) }
        if lag { sawLag = true }
        condition.broadcast()
        condition.unlock()
    }

    /// The integer after `"t":` in the frame, if any.
    static func stamp(in bytes: [UInt8]) -> Int64? {
        let key = Array(#""t":"#.utf8)
        guard bytes.count > key.count else { return nil }
        for i in 0...(bytes.count - key.count) where bytes[i] == key[0] && Array(bytes[i..<(i + key.count)]) == key {
            var value: Int64 = 0
            var j = i + key.count
            while j < bytes.count, bytes[j] >= 0x30, bytes[j] <= 0x39 {
                value = value * 10 + Int64(bytes[j] - 0x30)
                j += 1
            }
            return j > i + key.count ? value : nil
        }
        return nil
    }

    func waitForLatencies(_ count: Int, timeout: Double = 30) -> [Double] {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while latencies.count < count, condition.wait(until: deadline) {}
        return latencies
    }
}
