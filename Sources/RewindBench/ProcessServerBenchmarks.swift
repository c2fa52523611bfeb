import Foundation
import RewindJSON
import RewindSupport

/// The "server-process" group: `rewind serve` as a child process, and each client (app or
/// inspector) a process of its own (`rewind-bench --role …`), as users run them. Next to each
/// throughput it reports the server process' CPU time per event, read from /proc: on 2 cores,
/// throughput alone hides who used them.
///
/// Needs the `rewind` binary beside `rewind-bench` (`swift build -c release` builds both).
enum ProcessServerBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "server-process", run: run) }

    static func run() throws -> [BenchResult] {
        var results: [BenchResult] = []
        results += try ingest(apps: 1, eachEvents: 100_000)
        results += try ingest(apps: 4, eachEvents: 50_000)
        let unpaced = try unpacedInspected()
        let paced = try latency(inspectors: 1)
        results += paced
        if let steady = paced.first(where: { $0.name == "server-process/server CPU per event, 5,000/s, 1 inspector" })?.value {
            results.append(BenchResult(name: "server-process/server CPU per event, 5,000/s against unpaced, 1 inspector", value: steady, unit: "µs",
                                       baseline: unpaced, ratio: steady / unpaced,
                                       note: "baseline: the same events and inspector, 60,000 sent as fast as acks allow; goal ratio ≤ 1.25"))
        }
        results += try latency(inspectors: 10)
        results += try latency(inspectors: 1, shape: .action)
        return results
    }

    // MARK: - Scenarios

    static func ingest(apps: Int, eachEvents: Int) throws -> [BenchResult] {
        try withServer { server in
            let before = server.cpuSeconds()
            let children = try (0..<apps).map { _ in try Child(bench, ["--role", "app", String(server.port), String(eachEvents), "0"]) }
            let reports = try children.map { try $0.finish() }
            let cpu = server.cpuSeconds() - before
            let total = Double(apps * eachEvents)
            let seconds = reports.compactMap { $0["seconds"]?.numberValue?.doubleValue }.max() ?? .nan
            let bytes = reports.first?["bytesPerEvent"]?.numberValue?.int64Value ?? 0
            let label = apps == 1 ? "one app" : "\(apps) apps"
            let goal = apps == 1 ? "50,000" : "100,000"
            return [
                BenchResult(name: "server-process/ingest, \(label) (~1 KB events)", value: (total / seconds).rounded(), unit: "events/s",
                            note: "acked once committed; \(apps) × \(eachEvents) events of \(bytes) bytes; goal ≥ \(goal)/s"),
                BenchResult(name: "server-process/server CPU per event, ingest, \(label)", value: (cpu / total * 1e7).rounded() / 10, unit: "µs",
                            note: "utime+stime of rewind serve over the run, /proc/PID/stat"),
            ]
        }
    }

    /// The server's CPU an event for the work of ``latency(inspectors:shape:)`` with one inspector
    /// (the same stamped events, each pushed to the inspector), sent as fast as the acks allow
    /// instead of at 5,000/s: the baseline of the steady-rate cost. 60,000 events, about as
    /// long a run as the paced one's 15,000 (a shorter one measured the machine's moods more
    /// than the server).
    static func unpacedInspected() throws -> Double {
        try withServer { server in
            let events = 60_000
            let watcher = try Child(bench, ["--role", "inspector", String(server.port), String(events)])
            try watcher.waitFor("ready")
            let before = server.cpuSeconds()
            let app = try Child(bench, ["--role", "app", String(server.port), String(events), "0", "1"])
            _ = try app.finish()
            let report = try watcher.finish()
            let cpu = server.cpuSeconds() - before
            guard (report["received"]?.numberValue?.int64Value ?? 0) >= Int64(events) else {
                throw BenchFailure("the inspector of the unpaced run missed events")
            }
            return (cpu / Double(events) * 1e7).rounded() / 10
        }
    }

    /// With `shape` `.action`, the kilobyte of each event is in its action and the state changes
    /// by a counter (the log stores ~1.1 KB an event instead of ~2.4 KB); only the CPU figure is
    /// reported for it, under its own name.
    static func latency(inspectors count: Int, shape: EventSource.Shape = .state) throws -> [BenchResult] {
        try withServer { server in
            let events = 15_000
            let watchers = try (0..<count).map { _ in try Child(bench, ["--role", "inspector", String(server.port), String(events)]) }
            for watcher in watchers { try watcher.waitFor("ready") }
            let before = server.cpuSeconds()
            let app = try Child(bench, ["--role", "app", String(server.port), String(events), "5000", "1", shape.rawValue])
            _ = try app.finish()
            let reports = try watchers.map { try $0.finish() }
            let cpu = server.cpuSeconds() - before
            func values(_ key: String) -> [Double] { reports.compactMap { $0[key]?.numberValue?.doubleValue }.sorted() }
            let p50 = values("p50"), p99 = values("p99"), max = values("max")
            let lagged = reports.filter { $0["lagged"] == true }.count
            let short = reports.filter { ($0["received"]?.numberValue?.int64Value ?? 0) < Int64(events) }.count
            let label = count == 1 ? "1 inspector" : "\(count) inspectors"
            if shape == .action {
                return [BenchResult(name: "server-process/server CPU per event, 5,000/s, \(label), the kilobyte in the action",
                                    value: (cpu / Double(events) * 1e7).rounded() / 10, unit: "µs",
                                    note: "each event sets a counter and carries a 900-byte note; \(lagged) lagged, \(short) short")]
            }
            let note = "5,000 events/s × 15,000, ~1 KB; each inspector its own process; \(lagged) lagged, \(short) short of all events"
            return [
                BenchResult(name: "server-process/latency app→inspector p50, \(label)", value: ((p50[p50.count / 2]) * 100).rounded() / 100,
                            unit: "ms", note: note),
                BenchResult(name: "server-process/latency app→inspector p99, \(label)", value: ((p99.last ?? .nan) * 100).rounded() / 100,
                            unit: "ms", note: "the worst inspector's p99; goal < 10 ms"),
                BenchResult(name: "server-process/latency app→inspector max, \(label)", value: ((max.last ?? .nan) * 100).rounded() / 100,
                            unit: "ms", note: "after a 1,000-event warm-up"),
                BenchResult(name: "server-process/server CPU per event, 5,000/s, \(label)", value: (cpu / Double(events) * 1e7).rounded() / 10,
                            unit: "µs", note: "utime+stime of rewind serve; goal ≤ 30 µs with one inspector"),
            ]
        }
    }

    // MARK: - Processes

    /// This executable, for the client roles.
    static var bench: URL { URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath() }

    /// `rewind`, beside this executable.
    static func rewindBinary() throws -> URL {
        let url = bench.deletingLastPathComponent().appendingPathComponent("rewind")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw BenchFailure("the server-process benchmarks run \(url.path), which is not built: swift build -c release")
        }
        return url
    }

    struct Server {
        let process: Child
        let port: Int

        /// The server process' user and system CPU time so far.
        func cpuSeconds() -> Double {
            guard let text = try? String(contentsOfFile: "/proc/\(process.process.processIdentifier)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return .nan }
            // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }

    static func withServer<T>(port: Int = 0, _ body: (Server) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // REWIND_BENCH_SERVE_ARGS adds arguments (`--metrics`), for an A/B of a server option.
        let extra = ProcessInfo.processInfo.environment["REWIND_BENCH_SERVE_ARGS"]?.split(separator: " ").map(String.init) ?? []
        let child = try Child(try rewindBinary(), ["serve", "--port", String(port), "--db", folder.appendingPathComponent("bench.db").path] + extra)
        defer { child.terminate() }
        let line = try child.waitFor("/app")
        guard let range = line.range(of: "ws://127.0.0.1:"), let port = Int(line[range.upperBound...].prefix { $0.isNumber }) else {
            throw BenchFailure("rewind serve did not say its port: \(line)")
        }
        return try body(Server(process: child, port: port))
    }
}

/// A child process whose standard output is read line by line as it comes.
final class Child: @unchecked Sendable {
    let process = Process()
    private struct Output {
        var lines: [String] = []
        var partial = ""
        var ended = false
    }

    /// Waiters for a line or the end wait here; each read wakes them.
    private let output = Condition(Output())

    /// `environment` is added to this process's own.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let handle = pipe.fileHandleForReading
        let reader = Thread { [weak self] in
            while true {
                let data = handle.availableData
                guard let self else { return }
                let ended = self.output.update(waking: .all) { output -> Bool in
                    if data.isEmpty {
                        if !output.partial.isEmpty { output.lines.append(output.partial) }
                        output.ended = true
                        return true
                    }
                    output.partial += String(decoding: data, as: UTF8.self)
                    while let newline = output.partial.firstIndex(of: "\n") {
                        output.lines.append(String(output.partial[..<newline]))
                        output.partial = String(output.partial[output.partial.index(after: newline)...])
                    }
                    return false
                }
                if ended { return }
            }
        }
        reader.start()
        try process.run()
    }

    /// Waits (at most `timeout` s) for a line containing `needle`; returns it.
    @discardableResult
    func waitFor(_ needle: String, timeout: Double = 60) throws -> String {
        let found = output.withLock(when: { output in output.ended || output.lines.contains { $0.contains(needle) } },
                                    deadline: MonotonicClock.deadline(after: timeout)) { output in
            output.lines.first { $0.contains(needle) }
        }
        guard let found else { throw BenchFailure("no '\(needle)' within \(Int(timeout)) s") }
        guard let line = found else {
            throw BenchFailure("\(process.executableURL?.lastPathComponent ?? "child") ended without saying \(needle)")
        }
        return line
    }

    /// Waits for the process to end; returns its last line as JSON.
    func finish(timeout: Double = 180) throws -> JSONObject {
        _ = output.wait(for: { $0.ended }, deadline: MonotonicClock.deadline(after: timeout))
        let last = output.withLock { $0.lines.last }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let last, case .object(let object) = try JSONValue(parsing: last) else {
            throw BenchFailure("a client process failed (status \(process.terminationStatus))")
        }
        return object
    }

    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
