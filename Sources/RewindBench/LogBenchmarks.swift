import Foundation
import RewindJSON
import RewindLog

/// The "log" group: how fast `LogWriter` stores events, beside plain SQLite inserts of the same
/// bytes (a prepared statement, one transaction per 1,000 rows, no triggers, index or FTS) in the
/// same run. Ratio = ours / plain; the goal is ≥ 0.6.
enum LogBenchmarks {
    static let eventCount = 20_000

    static var group: BenchGroup { BenchGroup(name: "log", run: run) }

    static func run() throws -> [BenchResult] {
        let events = makeEvents()
        let plainRows = events.map(PlainRow.init)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var run = 0
        func freshPath() -> String {
            run += 1
            return directory.appendingPathComponent("run\(run).db").path
        }

        // Each figure's runs alternate with the baseline's, so a neighbour's load hits both alike.
        var results: [BenchResult] = []
        let cases: [(String, String, () throws -> Double)] = [
            ("log/append+flush (batches of 1)", "events/s", { try appendThroughWriter(events, batch: 1, path: freshPath()) }),
            ("log/append+flush (batches of 100)", "events/s", { try appendThroughWriter(events, batch: 100, path: freshPath()) }),
        ] + PlainInserts.Variant.allCases.filter { $0 != .plain }.map { variant in
            ("log/plain + \(variant.rawValue)", "events/s", { try PlainInserts.run(plainRows, path: freshPath(), variant: variant) })
        }
        for (name, unit, body) in cases {
            let (ours, plain) = try pairedMedians(body, { try PlainInserts.run(plainRows, path: freshPath()) })
            let rate = Double(eventCount) / ours
            let plainRate = Double(eventCount) / plain
            results.append(BenchResult(name: name, value: rate.rounded(), unit: unit, baseline: plainRate.rounded(),
                                       ratio: rate / plainRate,
                                       note: name.hasPrefix("log/plain") ? "what one schema feature costs" : "plain SQLite inserts, same bytes"))
        }
        let encodeStart = Measure.now()
        var total = 0
        for event in events {
            total += event.action.serializedBytes().count + event.patch.serializedBytes().count + event.inverse.serializedBytes().count
            total += event.keyframe?.serializedBytes().count ?? 0
        }
        let encodeSeconds = Measure.now() - encodeStart
        results.append(BenchResult(name: "log/encode events as JSON", value: (Double(eventCount) / encodeSeconds).rounded(), unit: "events/s",
                                   note: "\(total / eventCount) bytes/event; done on the appending thread"))
        let keyframes = events.filter { $0.keyframe != nil }.count
        results.append(BenchResult(name: "log/keyframes per 1,000 events", value: Double(keyframes * 1_000 / eventCount), unit: "count",
                                   note: "~1 KB state, policy 1,000 events / half the state"))
        return results
    }

    /// Medians of 7 runs of `ours` and of `baseline`, alternated. Each run starts from a new file
    /// and returns the seconds of its work alone: opening and closing the file are not counted.
    static func pairedMedians(_ ours: () throws -> Double, _ baseline: () throws -> Double) throws -> (Double, Double) {
        _ = try ours()
        _ = try baseline()
        var oursSamples: [Double] = []
        var baselineSamples: [Double] = []
        for _ in 0..<7 {
            oursSamples.append(try ours())
            baselineSamples.append(try baseline())
        }
        return (Measure.quantile(oursSamples, 0.5), Measure.quantile(baselineSamples, 0.5))
    }

    /// Seconds from the first append to the return of `flush` (everything committed).
    static func appendThroughWriter(_ events: [LogEvent], batch: Int, path: String) throws -> Double {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let session = try writer.openSession(uuid: "bench", app: "Bench", startedAt: Date())
        precondition(session == 1)
        let started = Measure.now()
        var start = 0
        while start < events.count {
            let end = min(start + batch, events.count)
            writer.append(Array(events[start..<end]))
            start = end
        }
        try writer.flush()
        return Measure.now() - started
    }

    /// Events of a todo app whose state is about 1 KB; each action toggles or renames one item,
    /// so patches are small; keyframes where ``KeyframePolicy`` puts them.
    static func makeEvents() -> [LogEvent] {
        var items: [JSONValue] = (0..<12).map { index in
            ["id": .number(JSONNumber(index)), "title": .string("Item number \(index) to do"), "done": false, "tags": ["home"]]
        }
        var counter = KeyframeCounter(policy: KeyframePolicy())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return (0..<eventCount).map { seq in
            let index = seq % items.count
            let old = items[index]["done"] ?? false
            let new: JSONValue = .bool(!(old.boolValue ?? false))
            if case .object(var item) = items[index] {
                item.updateValue(new, forKey: "done")
                items[index] = .object(item)
            }
            let state: JSONValue = ["items": .array(items), "filter": "all", "user": ["name": "Ada", "id": 36]]
            let patch: JSONValue = [["op": "replace", "path": .string("/items/\(index)/done"), "value": new]]
            let inverse: JSONValue = [["op": "replace", "path": .string("/items/\(index)/done"), "value": old]]
            let stateBytes = state.serializedBytes().count
            let keyframe = counter.record(patchBytes: patch.serializedBytes().count, stateBytes: stateBytes)
            return LogEvent(
                sessionID: 1, seq: Int64(seq), at: start.addingTimeInterval(Double(seq) / 100),
                action: ["type": "todo/toggle", "payload": ["id": .number(JSONNumber(index)), "source": "list"]],
                patch: patch, inverse: inverse, hash: state.stableHash, durationNs: 1_200, cause: nil,
                keyframe: keyframe ? state : Optional.none)
        }
    }
}
