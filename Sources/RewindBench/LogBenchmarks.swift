import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// The "log" group: how fast `LogWriter` stores events, beside plain SQLite inserts of the same
/// bytes (a prepared statement, one transaction per 1,000 rows, no triggers, index or FTS) in the
/// same run. Ratio = ours / plain; the goal is ≥ 0.6.
enum LogBenchmarks {
    static let eventCount = 20_000

    static var group: BenchGroup { BenchGroup(name: "log", run: run) }

    static func run() throws -> [BenchResult] {
        let events = makeEvents(count: eventCount)
        let plainRows = try events.map { try EncodedEvent($0) }
        // Ten times as many: long enough (about a second) that the full-text index, filled every
        // 100 ms on the writer's thread, costs its share inside the timed window.
        let sustained = makeEvents(count: eventCount * 10)
        let sustainedRows = try sustained.map { try EncodedEvent($0) }
        let folder = try BenchFolder("log")
        let freshPath = folder.freshPath

        // Each figure's runs alternate with the baseline's, so a neighbour's load hits both alike.
        var results: [BenchResult] = []
        let ours = "plain SQLite inserts, same bytes"
        var cases: [(name: String, rows: [EncodedEvent], note: String, body: () throws -> Double)] = [
            ("log/append+commit (batches of 1)", plainRows, ours, { try appendThroughWriter(events, batch: 1, until: .committed, path: freshPath()) }),
            ("log/append+commit (batches of 100)", plainRows, ours, { try appendThroughWriter(events, batch: 100, until: .committed, path: freshPath()) }),
            ("log/append+flush, indexed (batches of 1)", plainRows, ours, { try appendThroughWriter(events, batch: 1, until: .indexed, path: freshPath()) }),
            ("log/append+flush, indexed (batches of 100)", plainRows, ours, { try appendThroughWriter(events, batch: 100, until: .indexed, path: freshPath()) }),
            ("log/append+commit, 200,000 (batches of 1)", sustainedRows, ours + "; index filled along the way",
             { try appendThroughWriter(sustained, batch: 1, until: .committed, path: freshPath()) }),
            ("log/append+flush, indexed, 200,000 (batches of 1)", sustainedRows, ours,
             { try appendThroughWriter(sustained, batch: 1, until: .indexed, path: freshPath()) }),
        ]
        cases += PlainInserts.Variant.allCases.filter { $0 != .plain }.map { variant in
            ("log/plain + \(variant.rawValue)", plainRows, "what one schema feature costs", { try PlainInserts.run(plainRows, path: freshPath(), variant: variant) })
        }
        for item in cases {
            let rows = item.rows
            let (ours, plain) = try pairedMedians(item.body, { try PlainInserts.run(rows, path: freshPath()) })
            let rate = Double(rows.count) / ours
            let plainRate = Double(rows.count) / plain
            results.append(BenchResult(name: item.name, value: rate.rounded(), unit: "events/s", baseline: plainRate.rounded(),
                                       ratio: rate / plainRate, note: item.note))
        }
        // One index transaction: how long search can trail a commit beyond the interval.
        var indexSamples: [Double] = []
        for _ in 0..<5 {
            let writer = try LogWriter(path: freshPath(), options: .init(indexInterval: 3_600))
            _ = try writer.openSession(uuid: "bench", app: "Bench", startedAt: Date())
            writer.append(events)
            try writer.commit()
            let start = MonotonicClock.seconds()
            try writer.flush()
            indexSamples.append(MonotonicClock.seconds() - start)
            writer.close()
        }
        results.append(BenchResult(name: "log/index 20,000 committed events, one transaction", value: (Measure.quantile(indexSamples, 0.5) * 1_000 * 10).rounded() / 10,
                                   unit: "ms", note: "median of 5; what a search may trail a commit by, beyond indexInterval"))
        let encodeStart = MonotonicClock.seconds()
        var total = 0
        for event in events {
            total += event.action.serializedBytes().count + event.patch.serializedBytes().count + event.inverse.serializedBytes().count
            total += event.keyframe?.serializedBytes().count ?? 0
        }
        let encodeSeconds = MonotonicClock.seconds() - encodeStart
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

    enum Until {
        /// `commit()` returned: every event is stored (and acked, in the server).
        case committed
        /// `flush()` returned: every event is stored and in the full-text index too.
        case indexed
    }

    /// Seconds from the first append to the return of `commit` or `flush`.
    static func appendThroughWriter(_ events: [LogEvent], batch: Int, until: Until, path: String) throws -> Double {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let session = try writer.openSession(uuid: "bench", app: "Bench", startedAt: Date())
        precondition(session == 1)
        let started = MonotonicClock.seconds()
        var start = 0
        while start < events.count {
            let end = min(start + batch, events.count)
            writer.append(Array(events[start..<end]))
            start = end
        }
        switch until {
        case .committed: try writer.commit()
        case .indexed: try writer.flush()
        }
        return MonotonicClock.seconds() - started
    }

    /// Events of a todo app whose state is about 1 KB; each action toggles or renames one item,
    /// so patches are small; keyframes where ``KeyframePolicy`` puts them.
    static func makeEvents(count: Int) -> [LogEvent] {
        var items: [JSONValue] = (0..<12).map { index in
            ["id": .number(JSONNumber(index)), "title": .string("Item number \(index) to do"), "done": false, "tags": ["home"]]
        }
        var counter = KeyframeCounter(policy: KeyframePolicy())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return (0..<count).map { seq in
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
