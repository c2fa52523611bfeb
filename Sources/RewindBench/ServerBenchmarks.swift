import Foundation
import RewindJSON
import RewindServer
import RewindWebSocket
import RewindWire
import RewindSupport

/// The "server" group: `rewind serve` in this process on 127.0.0.1, fed by an app client over a
/// real socket. Ingest rate from one app (~1 KB events, goal ≥ 50,000/s), app-to-inspector latency
/// at 5,000 events/s with ten inspectors (goal p99 < 10 ms), and the process' RSS as the log grows
/// to 1,000,000 events (goal: flat).
enum ServerBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "server", run: run) }

    static func run() throws -> [BenchResult] {
        var results: [BenchResult] = []
        results.append(try ingest())
        results += try latency()
        results += try memory()
        return results
    }

    // MARK: - Figures

    static func ingest() throws -> BenchResult {
        let count = 100_000
        return try withServer { server, folder in
            let app = try BenchApp(port: server.port ?? 0)
            try app.hello()
            var events = EventSource(payloadBytes: 900)
            let frames = (0..<count).map { events.frame(seq: Int64($0)) }
            let start = MonotonicClock.seconds()
            for (seq, frame) in frames.enumerated() {
                app.send(frame, window: 4_000, seq: Int64(seq))
            }
            app.waitForAck(Int64(count - 1))
            let seconds = MonotonicClock.seconds() - start
            app.close()
            return BenchResult(name: "server/ingest, one app (~1 KB events)", value: (Double(count) / seconds).rounded(),
                               unit: "events/s", note: "acked once committed; goal ≥ 50,000/s; \(frames[1].count) bytes/event")
        }
    }

    static func latency() throws -> [BenchResult] {
        try withServer { server, _ in
            let port = server.port ?? 0
            let inspectors = try (0..<10).map { _ in try BenchInspector(port: port) }
            let app = try BenchApp(port: port)
            try app.hello()
            var events = EventSource(payloadBytes: 900)
            let count = 15_000
            let rate = 5_000.0
            let start = MonotonicClock.seconds()
            for seq in 0..<count {
                let due = start + Double(seq) / rate
                while MonotonicClock.seconds() < due { usleep(100) }
                app.send(events.frame(seq: Int64(seq), stamp: true), window: 20_000, seq: Int64(seq))
            }
            app.waitForAck(Int64(count - 1))
            var all: [Double] = []
            for inspector in inspectors { all += inspector.waitForLatencies(count).dropFirst(1_000) }
            app.close()
            for inspector in inspectors { inspector.client.close() }
            all.sort()
            func percentile(_ p: Double) -> Double { all.isEmpty ? .nan : all[min(all.count - 1, Int(Double(all.count) * p))] }
            return [
                BenchResult(name: "server/latency app→inspector p50 (5,000/s, 10)", value: (percentile(0.5) * 1e5).rounded() / 100,
                            unit: "ms", note: "\(all.count) deliveries after a 1,000-event warm-up"),
                BenchResult(name: "server/latency app→inspector p99 (5,000/s, 10)", value: (percentile(0.99) * 1e5).rounded() / 100,
                            unit: "ms", note: "goal < 10 ms"),
            ]
        }
    }

    static func memory() throws -> [BenchResult] {
        try withServer { server, _ in
            let app = try BenchApp(port: server.port ?? 0)
            try app.hello()
            var events = EventSource(payloadBytes: 200)
            var results: [BenchResult] = []
            var marks: [Int: Double] = [:]
            let total = 1_000_000
            for seq in 0..<total {
                app.send(events.frame(seq: Int64(seq)), window: 4_000, seq: Int64(seq))
                if seq + 1 == 100_000 || seq + 1 == total {
                    app.waitForAck(Int64(seq))
                    marks[seq + 1] = residentMegabytes()
                }
            }
            app.close()
            results.append(BenchResult(name: "server/RSS after 100,000 events", value: marks[100_000] ?? .nan, unit: "MB",
                                       note: "server and app client in one process"))
            results.append(BenchResult(name: "server/RSS after 1,000,000 events", value: marks[total] ?? .nan, unit: "MB",
                                       baseline: marks[100_000], ratio: (marks[total] ?? 0) / (marks[100_000] ?? 1), note: "goal: flat"))
            return results
        }
    }

    // MARK: - Helpers

    static func withServer<T>(_ body: (RewindServer, URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try RewindServer(configuration: RewindServerConfiguration(logPath: folder.appendingPathComponent("bench.db").path, port: 0))
        try server.start()
        defer { server.shutdown() }
        return try body(server, folder)
    }

    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
        return (pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576 * 10).rounded() / 10
    }
}

/// Events whose state stays the same size: each replaces `/last` with a fresh payload.
struct EventSource {
    /// Where an event's ~1 KB goes.
    enum Shape: String {
        /// Into the state: each event replaces a 900-byte string, so the log stores the patch,
        /// its inverse (the old string) and, every second event, a keyframe (~2.4 KB an event).
        case state
        /// Into the action: each event carries a 900-byte note in words and sets a counter, so the
        /// log stores the action and two small patches (~1.1 KB an event), and the full-text index
        /// takes the note's ~110 words.
        case action
    }

    var state: JSONValue
    let payload: String
    let shape: Shape
    /// The compact size of the last frame's patch (what a writer's keyframe rule weighs).
    private(set) var lastPatchBytes = 0

    init(payloadBytes: Int, shape: Shape = .state) {
        payload = String(repeating: "r", count: payloadBytes)
        self.shape = shape
        state = ["count": 0, "last": .string(shape == .state ? payload : "")]
    }

    /// A note of about `bytes` bytes in words, as a user's text would be (what the log's
    /// full-text index takes apart): the seq, then words from a small vocabulary.
    static func note(seq: Int64, bytes: Int) -> String {
        let words = ["order", "shipped", "customer", "invoice", "paid", "total", "item", "address", "review", "refund", "pending", "note"]
        var text = "event \(seq)"
        var index = UInt64(seq)
        while text.utf8.count < bytes - 10 {
            text += " " + words[Int(index % UInt64(words.count))]
            index = index &* 31 &+ 7
        }
        return text
    }

    /// The event with `seq`; with `stamp`, its action carries the send time in ns (`t`).
    mutating func frame(seq: Int64, stamp: Bool = false) -> [UInt8] {
        var action: JSONObject = ["type": "bench/set"]
        if stamp { action["t"] = .number(JSONNumber(Int64(DispatchTime.now().uptimeNanoseconds))) }
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: .object(action), keyframe: state, hash: state.stableHash)).json
                .serializedBytes(.compact)
        }
        var text = payload
        text.replaceSubrange(text.startIndex..<text.index(text.startIndex, offsetBy: 12), with: String(seq).leftPad(12))
        var patch: JSONValue = [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))]]
        switch shape {
        case .state: patch = [patch[0]!, ["op": "replace", "path": "/last", "value": .string(text)]]
        case .action: action["note"] = .string(Self.note(seq: seq, bytes: payload.utf8.count))
        }
        try? state.apply(JSONPatch(json: patch))
        lastPatchBytes = patch.serializedBytes(.compact).count
        return AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000, action: .object(action), patch: patch,
                                          hash: state.stableHash, durationNs: 1_000)).json.serializedBytes(.compact)
    }
}
