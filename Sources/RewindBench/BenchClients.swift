import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindSupport

/// An app for the benchmarks: sends frames, keeping at most `window` unacked.
final class BenchApp: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    private struct Progress {
        var acked: Int64 = -1
        var welcomed = false
        /// When each seq was handed to the client, and how long its ack took (seconds); an ack
        /// covers every seq up to its own.
        var sentAt: [Double] = []
        var ackDelays: [Double] = []
    }

    /// Senders wait here for the welcome and for acks; each reply wakes them.
    private let progress = Condition(Progress())

    init(port: Int) throws {
        var configuration = WebSocketClientConfiguration(url: "ws://127.0.0.1:\(port)/app", subprotocol: AppMessage.subprotocol)
        configuration.queueLimits = WebSocketQueueLimits(maxMessages: 50_000, maxBytes: 256 << 20)
        client = try WebSocketClient(configuration: configuration)
        try client.connect(delegate: self)
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard let reply = try? ServerToApp(frame: message.bytes) else { return }
        progress.update(waking: .all) { progress in
            switch reply {
            case .welcome: progress.welcomed = true
            case .ack(let seq):
                let now = MonotonicClock.seconds()
                if seq > progress.acked, !progress.sentAt.isEmpty {
                    for covered in (progress.acked + 1)...min(seq, Int64(progress.sentAt.count) - 1) {
                        progress.ackDelays.append(now - progress.sentAt[Int(covered)])
                    }
                }
                progress.acked = max(progress.acked, seq)
            default: break
            }
        }
    }

    func hello() throws {
        _ = client.send(text: AppMessage.hello(AppMessage.Hello(id: 1, session: UUID().uuidString, app: "bench")).json.serialized(.compact))
        guard progress.wait(for: { $0.welcomed }, deadline: MonotonicClock.deadline(after: 10)) else {
            throw BenchFailure("no welcome")
        }
    }

    func send(_ frame: [UInt8], window: Int64, seq: Int64) {
        _ = progress.withLock(when: { seq - $0.acked <= window }) { progress in
            if Int(seq) == progress.sentAt.count { progress.sentAt.append(MonotonicClock.seconds()) }
        }
        _ = client.connection.send(textBytes: frame)
    }

    /// The delays from handing each event to the client to its ack, in seconds, sorted.
    var sortedAckDelays: [Double] {
        progress.withLock { $0.ackDelays.sorted() }
    }

    func waitForAck(_ seq: Int64) {
        _ = progress.wait(for: { $0.acked >= seq }, deadline: MonotonicClock.deadline(after: 120))
    }

    func close() {
        client.close()
        _ = client.waitUntilFinished(timeout: .seconds(10))
    }
}

/// An inspector subscribed to every session, noting each stamped event's delay.
final class BenchInspector: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    private struct Heard {
        var latencies: [Double] = []
        var received = 0
        var sawLag = false
    }

    /// The benchmark waits here for the first reply and for latencies; each message wakes it.
    private let heard = Condition(Heard())

    /// The server said this inspector fell behind (a `lagged` push).
    var lagged: Bool {
        heard.withLock { $0.sawLag }
    }

    init(port: Int) throws {
        client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/inspect", subprotocol: InspectorRequest.subprotocol)
        try client.connect(delegate: self)
        _ = client.send(text: #"{"type":"subscribe","id":1,"session":"*"}"#)
        guard heard.wait(for: { $0.received > 0 }, deadline: MonotonicClock.deadline(after: 10)) else {
            throw BenchFailure("no subscribe reply")
        }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        let now = DispatchTime.now().uptimeNanoseconds
        // The stamp is read straight from the bytes, so the inspectors' own parsing does not
        // count against the server.
        let delay = Self.stamp(in: message.bytes).map { Double(Int64(now) - $0) / 1e9 }
        let lag = delay == nil && message.bytes.count < 400 && String(decoding: message.bytes, as: UTF8.self).contains(#""type":"lagged""#)
        heard.update(waking: .all) { heard in
            heard.received += 1
            if let delay { heard.latencies.append(delay) }
            if lag { heard.sawLag = true }
        }
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
        _ = heard.wait(for: { $0.latencies.count >= count }, deadline: MonotonicClock.deadline(after: timeout))
        return heard.withLock { $0.latencies }
    }
}
