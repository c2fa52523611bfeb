import Foundation
import RewindJSON
import RewindWire
import RewindSupport

/// `rewind-bench --role app|inspector|copy …`: one client of an out-of-process server benchmark, run as
/// a process of its own by ``ProcessServerBenchmarks``. It prints one JSON object on standard
/// output when done.
enum ProcessRoles {
    /// Runs the role named by `arguments` (after `--role`); exits the process.
    static func run(_ arguments: [String]) -> Never {
        do {
            let result: JSONValue
            switch arguments.first {
            case "app": result = try app(Array(arguments.dropFirst()))
            case "inspector": result = try inspector(Array(arguments.dropFirst()))
            case "copy": result = try copy(Array(arguments.dropFirst()))
            default: throw BenchFailure("unknown role '\(arguments.first ?? "")': app, inspector or copy")
            }
            say(result.serialized(.compact))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("rewind-bench role: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Writes `line` to standard output at once (not through stdio's buffer).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// `app PORT COUNT RATE [STAMP [SHAPE]]`: streams COUNT ~1 KB events (RATE per second, 0: as
    /// fast as the acks allow), waits for the last ack; with STAMP=1 each action carries its send
    /// time. SHAPE is where the kilobyte goes (`EventSource.Shape`: state, the default, or action).
    /// Reports the time from the first send to the last ack, and each event's delay from its send
    /// to its ack (p50, p99, max).
    static func app(_ arguments: [String]) throws -> JSONValue {
        guard arguments.count >= 3, let port = Int(arguments[0]), let count = Int(arguments[1]), let rate = Double(arguments[2]) else {
            throw BenchFailure("app PORT COUNT RATE [STAMP [SHAPE]]")
        }
        let stamp = arguments.count > 3 && arguments[3] == "1"
        guard let shape = arguments.count > 4 ? EventSource.Shape(rawValue: arguments[4]) : .state else {
            throw BenchFailure("SHAPE is state or action")
        }
        let app = try BenchApp(port: port)
        try app.hello()
        var events = EventSource(payloadBytes: 900, shape: shape)
        // Built before the clock starts, unless stamped (the stamp is the send time).
        let frames = stamp ? [] : (0..<count).map { events.frame(seq: Int64($0)) }
        let start = MonotonicClock.seconds()
        for seq in 0..<count {
            if rate > 0 {
                let due = start + Double(seq) / rate
                while MonotonicClock.seconds() < due { usleep(50) }
            }
            let frame = stamp ? events.frame(seq: Int64(seq), stamp: true) : frames[seq]
            app.send(frame, window: 8_000, seq: Int64(seq))
        }
        app.waitForAck(Int64(count - 1))
        let seconds = MonotonicClock.seconds() - start
        app.close()
        let delays = app.sortedAckDelays
        func ackPercentile(_ p: Double) -> JSONValue {
            delays.isEmpty ? .null : .number(JSONNumber(delays[min(delays.count - 1, Int(Double(delays.count) * p))] * 1e3) ?? 0)
        }
        return ["events": .number(JSONNumber(Int64(count))), "seconds": .number(JSONNumber(seconds)!),
                "bytesPerEvent": .number(JSONNumber(Int64(stamp ? 0 : frames[min(1, count - 1)].count))),
                "ackP50ms": ackPercentile(0.5), "ackP99ms": ackPercentile(0.99), "ackMaxMs": ackPercentile(1)]
    }

    /// `inspector PORT COUNT`: subscribes to every session and waits for COUNT stamped events
    /// (at most 60 s); reports their delays after the first 1,000, and whether it lagged.
    static func inspector(_ arguments: [String]) throws -> JSONValue {
        guard arguments.count >= 2, let port = Int(arguments[0]), let count = Int(arguments[1]) else {
            throw BenchFailure("inspector PORT COUNT")
        }
        let inspector = try BenchInspector(port: port)
        // Ready: the parent starts the app once every inspector printed this.
        say("ready")
        let latencies = Array(inspector.waitForLatencies(count, timeout: 90).dropFirst(1_000)).sorted()
        inspector.client.close()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        return ["received": .number(JSONNumber(Int64(latencies.count + 1_000))),
                "p50": .number(JSONNumber(percentile(0.5) * 1e3) ?? 0), "p99": .number(JSONNumber(percentile(0.99) * 1e3) ?? 0),
                "max": .number(JSONNumber(percentile(1) * 1e3) ?? 0), "lagged": .bool(inspector.lagged)]
    }
}
