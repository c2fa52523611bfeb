import Foundation
import Rewind
import RewindJSON
import RewindSupport
import RewindWebSocket

/// The "server-process/recorder-app" group: the product's own app side
/// (a real `Recorder` whose `ServerSink` keeps a local log, store and forward, and sends batches)
/// against `rewind serve` in its own process, inspectors in processes of their own.
enum ForwardBenchmarks {
    static var group: BenchGroup {
        BenchGroup(name: "server-process/recorder-app") { try MainActor.assumeIsolated { try run() } }
    }

    /// The recorder at 1 MB with the local log and the server alone (`--filter recorder-forward`),
    /// which is quick enough to run from a debug build too.
    static var recorderGroup: BenchGroup {
        BenchGroup(name: "recorder-forward") { try MainActor.assumeIsolated { try recorderAtOneMegabyte() } }
    }

    /// ~1 KB of state per event: a counter and a 900-byte string whose head changes.
    struct BenchState: Codable, Sendable {
        var count = 0
        var last = String(repeating: "r", count: 900)
    }

    /// The action carries its send time (`t`, uptime nanoseconds), which the inspectors read.
    struct BenchAction: Codable, Sendable {
        var type = "bench/set"
        var t: Int64
    }

    @MainActor
    static func run() throws -> [BenchResult] {
        var results: [BenchResult] = []
        if ProcessInfo.processInfo.environment["REWIND_BENCH_CATCHUP_ONLY"] == nil {
            results += try live(inspectors: 1)
            results += try live(inspectors: 10)
        }
        results += try catchUp(events: 100_000)
        return results
    }

    static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// 15,000 events at 5,000/s from a recording app: server CPU per event and latency to the
    /// inspectors.
    @MainActor
    static func live(inspectors count: Int) throws -> [BenchResult] {
        let outbox = try folder("outbox")
        defer { try? FileManager.default.removeItem(at: outbox) }
        return try ProcessServerBenchmarks.withServer { server in
            let events = 15_000
            let watchers = try (0..<count).map { _ in
                try Child(ProcessServerBenchmarks.bench, ["--role", "inspector", String(server.port), String(events)])
            }
            for watcher in watchers { try watcher.waitFor("ready") }
            let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(server.port)")!, capacity: 50_000, localLog: outbox.path, report: nil)
            var state = BenchState()
            let recorder = Recorder<BenchState, BenchAction>(initialState: state, to: .sinks([sink]),
                                                             metadata: RecordingMetadata(app: "bench"),
                                                             options: RecorderOptions(queueCapacity: 50_000))
            let before = server.cpuSeconds()
            let start = MonotonicClock.seconds()
            // `events` stamped events (the inspectors wait for that many), after seq 0.
            for seq in 1...events {
                let due = start + Double(seq) / 5_000
                while MonotonicClock.seconds() < due { usleep(50) }
                state.count = seq
                state.last.replaceSubrange(state.last.startIndex..<state.last.index(state.last.startIndex, offsetBy: 12),
                                           with: String(seq).leftPad(12))
                recorder.record(BenchAction(t: Int64(DispatchTime.now().uptimeNanoseconds)), state: state)
            }
            let waited = MonotonicClock.seconds()
            if !sink.waitForAcknowledgements(timeout: .seconds(60)) {
                throw BenchFailure("\(sink.unacknowledgedCount) events of the recording app were not acknowledged within 60 s")
            }
            let ackWait = MonotonicClock.seconds() - waited
            let reports = try watchers.map { try $0.finish() }
            let cpu = server.cpuSeconds() - before
            recorder.stop()
            func values(_ key: String) -> [Double] { reports.compactMap { $0[key]?.numberValue?.doubleValue }.sorted() }
            let p50 = values("p50"), p99 = values("p99")
            let lagged = reports.filter { $0["lagged"] == true }.count
            let label = count == 1 ? "1 inspector" : "\(count) inspectors"
            return [
                BenchResult(name: "server-process/recorder app, server CPU per event, 5,000/s, \(label)",
                            value: (cpu / Double(events) * 1e7).rounded() / 10, unit: "µs",
                            note: "a real Recorder with a local log streams ~1 KB states (batches when more than one waits); goal ≤ 30; last ack \((ackWait * 1000).rounded()) ms after the last record"),
                BenchResult(name: "server-process/recorder app, latency p50, \(label)", value: (p50[p50.count / 2] * 100).rounded() / 100,
                            unit: "ms", note: "record → inspector, after a 1,000-event warm-up; \(lagged) lagged"),
                BenchResult(name: "server-process/recorder app, latency p99, \(label)", value: ((p99.last ?? .nan) * 100).rounded() / 100,
                            unit: "ms", note: "the worst inspector's p99; goal < 10 ms"),
            ]
        }
    }

    /// `events` recorded while the server is away, then delivered by the next run's sink: events
    /// per second from the first connect to the last acknowledgement, and server CPU per event.
    @MainActor
    static func catchUp(events: Int) throws -> [BenchResult] {
        let outbox = try folder("catchup")
        defer { try? FileManager.default.removeItem(at: outbox) }
        let port = try freePort()
        let url = URL(string: "ws://127.0.0.1:\(port)")!
        // The first run: nothing listens; every event stays in the local log.
        do {
            // ~3 KB an event in the local log (patch, inverse, a keyframe every other event): past
            // the default bound of 256 MiB, so the run sets 1 GiB.
            let sink = ServerSink(url: url, localLog: outbox.path, localLogLimit: 1 << 30,
                                  report: { sentence in
                                      // That nothing accepts the connection is the point of this run.
                                      guard !sentence.hasPrefix("cannot connect") else { return }
                                      FileHandle.standardError.write(Data("rewind-bench: catch-up, first run: \(sentence)\n".utf8))
                                  })
            var state = BenchState()
            let recorder = Recorder<BenchState, BenchAction>(initialState: state, to: .sinks([sink]),
                                                             metadata: RecordingMetadata(app: "bench"),
                                                             options: RecorderOptions(queueCapacity: events + 1))
            for seq in 1...events {
                state.count = seq
                state.last.replaceSubrange(state.last.startIndex..<state.last.index(state.last.startIndex, offsetBy: 12),
                                           with: String(seq).leftPad(12))
                recorder.record(BenchAction(t: 0), state: state)
            }
            recorder.stop()
            sink.disconnect()
        }
        return try ProcessServerBenchmarks.withServer(port: port) { server in
            let before = server.cpuSeconds()
            let start = MonotonicClock.seconds()
            let sink = ServerSink(url: url, flushTimeout: .zero, localLog: outbox.path, localLogLimit: 1 << 30,
                                  report: { FileHandle.standardError.write(Data("rewind-bench: catch-up: \($0)\n".utf8)) })
            let recorder = Recorder<BenchState, BenchAction>(initialState: BenchState(), to: .sinks([sink]),
                                                             metadata: RecordingMetadata(app: "bench"))
            // The sink begins on the recorder's thread, and starts the catch-up there.
            recorder.flush()
            let deadline = Date(timeIntervalSinceNow: 30)
            while sink.catchUpCount == 0, Date() < deadline { usleep(1_000) }
            guard sink.catchUpCount == 1 else { throw BenchFailure("the catch-up found \(sink.catchUpCount) sessions, not 1") }
            let delivered = sink.waitForCatchUp(timeout: .seconds(600))
            let seconds = MonotonicClock.seconds() - start
            let cpu = server.cpuSeconds() - before
            recorder.stop()
            guard delivered else { throw BenchFailure("the catch-up did not finish in 600 s") }
            let total = Double(events + 1)
            return [
                BenchResult(name: "server-process/catch-up of \(events) queued events", value: (total / seconds).rounded(), unit: "events/s",
                            note: "recorded with the server away into the local log, delivered by the next run in batches"),
                BenchResult(name: "server-process/catch-up, server CPU per event", value: (cpu / total * 1e7).rounded() / 10, unit: "µs",
                            note: "utime+stime of rewind serve while it took the catch-up"),
            ]
        }
    }

    /// Recorder throughput at 1 MB with the local log and the server, against the same states
    /// into a log file alone, in one run.
    @MainActor
    static func recorderAtOneMegabyte() throws -> [BenchResult] {
        let scratch = try folder("recorder-forward")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let state = StoreBenchmarks.State(bytes: 1_000_000)
        let count = 200
        var states: [StoreBenchmarks.State] = []
        var current = state
        for index in 0..<count {
            _ = StoreBenchmarks.reducer(&current, .toggle(index))
            states.append(current)
        }
        let alone = StoreBenchmarks.recorderThroughput(state, count: count, path: scratch.appendingPathComponent("alone.db").path)
        let (forwarded, acked) = try ProcessServerBenchmarks.withServer { server in
            // No wait for acknowledgements in `flush`: it returns once the local log has committed.
            let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(server.port)")!, flushTimeout: .zero, localLog: scratch.path, report: nil)
            let recorder = Recorder<StoreBenchmarks.State, StoreBenchmarks.Action>(
                initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "bench"),
                options: RecorderOptions(queueCapacity: count + 1))
            recorder.flush()
            _ = sink.waitForAcknowledgements(timeout: .seconds(60))
            let t0 = MonotonicClock.seconds()
            for index in 0..<count { recorder.record(.toggle(index), state: states[index]) }
            recorder.flush()
            let recorded = MonotonicClock.seconds() - t0
            _ = sink.waitForAcknowledgements(timeout: .seconds(120))
            let all = MonotonicClock.seconds() - t0
            recorder.stop()
            return (Double(count) / recorded, Double(count) / all)
        }
        #if DEBUG
        let build = "debug build"
        #else
        let build = "release build"
        #endif
        return [
            BenchResult(name: "recorder/1 MB state, local log and server (\(build))", value: forwarded.rounded(), unit: "states/s",
                        baseline: alone.rounded(), ratio: forwarded / alone,
                        note: "\(count) states through the recorder's thread into the local log (committed) and the link; baseline: a log file alone; goal ≥ 2,000"),
            BenchResult(name: "recorder/1 MB state, acked by rewind serve (\(build))", value: acked.rounded(), unit: "states/s",
                        note: "the same states until the server acknowledged the last: the server hashes each whole state"),
        ]
    }

    /// A port nothing listens on at the moment.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, SocketType.stream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
