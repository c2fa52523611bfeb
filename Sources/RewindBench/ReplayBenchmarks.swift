import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindSupport

/// The "replay" group: the log's write path end to end, its size on disk for a large state, and
/// how long rebuilding a state takes in a long session.
///
/// - `replay/record`: what a recorder pays per action, through the whole path: `EventBuilder`
///   (diff, inverse, stable hash, keyframe rule) + `LogWriter.append` + the final `flush`, for
///   ~1 KB states with small changes. Baseline: plain SQLite inserts of the very bytes the path
///   stored (``PlainInserts``), in the same run. Goal: ≥ 0.6 of plain.
/// - `replay/bytes per event, 1 MB state`: file size / events after recording events that each
///   change one field of a 1 MB state. Goal: < 2 KB.
/// - `replay/state(at:)`: random seqs of a 1,000,000-event session, each from a new, empty
///   cache. Goal: p99 < 5 ms.
enum ReplayBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "replay", run: run) }

    static func run() throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var results: [BenchResult] = []
        results += try recordThroughput(in: directory)
        results += try largeStateBytes(in: directory)
        results += try stateAtRandomSeqs(in: directory)
        return results
    }

    // MARK: Append through the whole path

    static let recordCount = 20_000

    /// The actions and the states they produce, built before any timing: what the app does.
    /// A todo app whose state is about 1 KB; each action toggles or renames one item.
    static func appSteps(count: Int) -> (initial: JSONValue, steps: [(action: JSONValue, state: JSONValue)]) {
        var items: [JSONValue] = (0..<12).map { index in
            ["id": .number(JSONNumber(index)), "title": .string("Item number \(index) to do"), "done": false, "tags": ["home"]]
        }
        func state() -> JSONValue { ["items": .array(items), "filter": "all", "user": ["name": "Ada", "id": 36]] }
        let initial = state()
        var steps: [(action: JSONValue, state: JSONValue)] = []
        steps.reserveCapacity(count)
        for seq in 1...count {
            let index = seq % items.count
            guard case .object(var item) = items[index] else { continue }
            let action: JSONValue
            if seq % 5 == 0 {
                item["title"] = .string("Item number \(index) renamed at \(seq)")
                action = ["type": "todo/rename", "payload": ["id": .number(JSONNumber(index)), "title": item["title"]!]]
            } else {
                item["done"] = .bool(!(item["done"]?.boolValue ?? false))
                action = ["type": "todo/toggle", "payload": ["id": .number(JSONNumber(index)), "source": "list"]]
            }
            items[index] = .object(item)
            steps.append((action, state()))
        }
        return (initial, steps)
    }

    /// Seconds from the first event built to the return of `flush`; the events built, for the baseline.
    static func record(_ app: (initial: JSONValue, steps: [(action: JSONValue, state: JSONValue)]), batch: Int,
                       path: String, keepEvents: Bool = false) throws -> (seconds: Double, events: [LogEvent]) {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let session = try writer.openSession(uuid: "bench", app: "Bench", startedAt: Date(), hashVersion: .v2)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var built: [LogEvent] = []
        if keepEvents { built.reserveCapacity(app.steps.count + 1) }
        let started = MonotonicClock.seconds()
        var builder = EventBuilder(sessionID: session, hashVersion: .v2)
        var pending = [builder.initial(state: app.initial, at: start)]
        for (index, step) in app.steps.enumerated() {
            pending.append(builder.next(action: step.action, state: step.state, at: start.addingTimeInterval(Double(index) / 100),
                                        durationNs: 1_200))
            if pending.count >= batch {
                writer.append(pending)
                if keepEvents { built += pending }
                pending.removeAll(keepingCapacity: true)
            }
        }
        writer.append(pending)
        try writer.flush()
        let seconds = MonotonicClock.seconds() - started
        return (seconds, built + pending)
    }

    static func recordThroughput(in directory: URL) throws -> [BenchResult] {
        let app = appSteps(count: recordCount)
        var run = 0
        func freshPath() -> String {
            run += 1
            return directory.appendingPathComponent("record\(run).db").path
        }
        let events = try record(app, batch: 1, path: freshPath(), keepEvents: true).events
        let rows = try events.map { try EncodedEvent($0) }
        let stateBytes = app.steps[0].state.serializedBytes().count
        var results: [BenchResult] = []
        for batch in [1, 100] {
            let (ours, plain) = try LogBenchmarks.pairedMedians(
                { try record(app, batch: batch, path: freshPath()).seconds },
                { try PlainInserts.run(rows, path: freshPath()) })
            let rate = Double(events.count) / ours
            let plainRate = Double(events.count) / plain
            results.append(BenchResult(
                name: "replay/record, batch \(batch)", value: rate.rounded(), unit: "events/s",
                baseline: plainRate.rounded(), ratio: rate / plainRate,
                note: "EventBuilder+append+flush, \(stateBytes) B state; baseline plain inserts of the same bytes; goal ≥ 0.6"))
        }
        // The ceiling: the writer alone, with the same events built beforehand.
        let (writerOnly, plain) = try LogBenchmarks.pairedMedians(
            { try LogBenchmarks.appendThroughWriter(events, batch: 1, until: .indexed, path: freshPath()) },
            { try PlainInserts.run(rows, path: freshPath()) })
        results.append(BenchResult(
            name: "replay/append prebuilt events, batch 1", value: (Double(events.count) / writerOnly).rounded(), unit: "events/s",
            baseline: (Double(events.count) / plain).rounded(), ratio: plain / writerOnly,
            note: "LogWriter alone: the ceiling of the record figure"))
        // Where the caller's time goes, one part at a time, on the same states: the builder (with
        // the recorder's hash, version 2) and the encoding `append` does before the hand-over.
        var previous = app.initial
        var builtEvents: [LogEvent] = []
        builtEvents.reserveCapacity(app.steps.count)
        let parts = Measure.median(minRuns: 3) {
            builtEvents.removeAll(keepingCapacity: true)
            var builder = EventBuilder(sessionID: 1, hashVersion: .v2)
            _ = builder.initial(state: app.initial, at: Date())
            for step in app.steps { builtEvents.append(builder.next(action: step.action, state: step.state, at: Date())) }
        }
        let hashOnly = Measure.median(minRuns: 3) {
            for step in app.steps { blackHole(step.state.treeHash) }
        }
        let diffOnly = Measure.median(minRuns: 3) {
            previous = app.initial
            for step in app.steps {
                blackHole(JSONDiff(from: previous, to: step.state))
                previous = step.state
            }
        }
        let encodeOnly = try Measure.median(minRuns: 3) {
            for event in builtEvents { blackHole(try EncodedEvent(event)) }
        }
        let perEvent = { (seconds: Double) in seconds / Double(app.steps.count) * 1e6 }
        let format = { (seconds: Double) in String(format: "%.2f", perEvent(seconds)) }
        results.append(BenchResult(name: "replay/EventBuilder.next", value: perEvent(parts), unit: "µs/event",
                                   note: "of which tree hash \(format(hashOnly)) µs, diff \(format(diffOnly)) µs; then encoding for append \(format(encodeOnly)) µs"))
        return results
    }

    // MARK: Bytes per event for a large state

    static let largeStateEvents = 5_000

    static let largeStateUsers = 5_000

    /// A state of about 1 MB: 5,000 users with a profile and settings.
    static func largeState() -> JSONValue {
        let users: [JSONValue] = (0..<largeStateUsers).map { index in
            [
                "id": .number(JSONNumber(index)), "name": .string("User \(index)"), "email": .string("user\(index)@example.com"),
                "score": .number(JSONNumber(index * 7 % 1_000)), "active": .bool(index % 3 != 0),
                "settings": ["theme": "light", "language": "en", "notifications": ["email": true, "push": false]],
                "tags": ["customer", .string("cohort-\(index % 12)")],
            ]
        }
        return ["users": .array(users), "version": 1]
    }

    static func largeStateBytes(in directory: URL) throws -> [BenchResult] {
        var state = largeState()
        let stateBytes = state.serializedBytes().count
        let path = directory.appendingPathComponent("large.db").path
        let writer = try LogWriter(path: path)
        let session = try writer.openSession(uuid: "large", app: "Bench", startedAt: Date())
        var builder = EventBuilder(sessionID: session)
        writer.append([builder.initial(state: state, at: Date())])
        var random = SplitMix64(seed: 42)
        let started = MonotonicClock.seconds()
        for _ in 1..<largeStateEvents {
            let user = Int(random.next() % UInt64(largeStateUsers))
            let score = Int(random.next() % 1_000)
            state = setScore(state, user: user, score: score)
            writer.append([builder.next(action: ["type": "user/score", "id": .number(JSONNumber(user)), "score": .number(JSONNumber(score))],
                                        state: state, at: Date())])
        }
        try writer.flush()
        let seconds = MonotonicClock.seconds() - started
        writer.close()
        let reader = try LogReader(path: path)
        let stats = try reader.stats()
        let bytes = Double(stats.fileBytes + stats.walBytes)
        return [
            BenchResult(name: "replay/bytes per event, 1 MB state", value: (bytes / Double(largeStateEvents)).rounded(), unit: "B/event",
                        note: "\(largeStateEvents) events, one field each, \(String(format: "%.2f", Double(stateBytes) / 1e6)) MB state, \(stats.keyframes) keyframes; goal < 2,000"),
            BenchResult(name: "replay/record, 1 MB state", value: seconds / Double(largeStateEvents) * 1e3, unit: "ms/event",
                        note: "build+append; the state's stable hash dominates"),
        ]
    }

    /// `state` with user `user`'s score set, changed in place as a reducer would.
    static func setScore(_ state: JSONValue, user: Int, score: Int) -> JSONValue {
        guard case .object(var root) = state, case .array(var users)? = root["users"], case .object(var entry) = users[user] else { return state }
        entry["score"] = .number(JSONNumber(score))
        users[user] = .object(entry)
        root["users"] = .array(users)
        return .object(root)
    }

    // MARK: state(at:) in a long session

    static let longSessionEvents = 1_000_000

    static func stateAtRandomSeqs(in directory: URL) throws -> [BenchResult] {
        let path = directory.appendingPathComponent("long.db").path
        let app = appSteps(count: 1_000)
        let stateBytes = app.initial.serializedBytes().count
        let buildStarted = MonotonicClock.seconds()
        // Keyframes only every 1,000 events (the policy's bound; its byte rule would put them
        // every few events for so small a state), so each rebuild is as long as the policy allows.
        let policy = KeyframePolicy(maxEvents: 1_000, maxPatchBytesRatio: .infinity)
        do {
            let writer = try LogWriter(path: path)
            defer { writer.close() }
            let session = try writer.openSession(uuid: "long", app: "Bench", startedAt: Date())
            var builder = EventBuilder(sessionID: session, policy: policy)
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            var batch = [builder.initial(state: app.initial, at: start)]
            for seq in 1..<longSessionEvents {
                let step = app.steps[seq % app.steps.count]
                batch.append(builder.next(action: step.action, state: step.state, at: start.addingTimeInterval(Double(seq) / 100)))
                if batch.count == 500 {
                    writer.append(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            writer.append(batch)
            try writer.flush()
        }
        let buildSeconds = MonotonicClock.seconds() - buildStarted
        let reader = try LogReader(path: path)
        let last = Int64(longSessionEvents - 1)
        var random = SplitMix64(seed: 7)
        // Warm the reader's statements and the OS's page cache a little, as a running server would be.
        let warm = try Timeline(reader: reader, session: 1, options: .uncached)
        for _ in 0..<50 { _ = try warm.state(at: Int64(random.next() % UInt64(last + 1))) }
        var cold: [Double] = []
        for _ in 0..<2_000 {
            let seq = Int64(random.next() % UInt64(last + 1))
            let t0 = MonotonicClock.seconds()
            let timeline = try Timeline(reader: reader, session: 1, options: .uncached)
            blackHole(try timeline.state(at: seq))
            cold.append(MonotonicClock.seconds() - t0)
        }
        // Stepping to the next seq, then back from a later one, each from the cached neighbour.
        let cached = try Timeline(reader: reader, session: 1)
        var forward: [Double] = []
        var backward: [Double] = []
        for (start, direction) in [(Int64(500_321), Int64(1)), (Int64(700_654), Int64(-1))] {
            _ = try cached.state(at: start)
            for offset in 1...1_000 {
                let t0 = MonotonicClock.seconds()
                blackHole(try cached.state(at: start + direction * Int64(offset)))
                if direction > 0 { forward.append(MonotonicClock.seconds() - t0) } else { backward.append(MonotonicClock.seconds() - t0) }
            }
        }
        // find: one walk of the patches, against rebuilding each state in turn (each from the
        // cached state before it) and looking at the path in every one.
        let pointer = try JSONPointer("/items/3/title")
        let findStarted = MonotonicClock.seconds()
        let found = try Timeline(reader: reader, session: 1, options: .uncached).find(path: pointer, condition: .changed)
        let findSeconds = MonotonicClock.seconds() - findStarted
        let rebuildStarted = MonotonicClock.seconds()
        let stepping = try Timeline(reader: reader, session: 1)
        var previous: JSONValue?
        var changes = 0
        for seq in 0...last {
            let value = pointer.resolve(in: try stepping.state(at: seq))
            if seq > 0, value != previous { changes += 1 }
            previous = value
        }
        let rebuildSeconds = MonotonicClock.seconds() - rebuildStarted
        guard changes == found.hits.count else {
            throw BenchFailure("find found \(found.hits.count) changes, rebuilding every state \(changes)")
        }
        let fileBytes = try reader.stats().fileBytes
        let note = "1,000,000 events, \(stateBytes) B state, keyframe every 1,000, each query a new Timeline (timed)"
        return [
            BenchResult(name: "replay/state(at:) random seq, p50", value: Measure.quantile(cold, 0.5) * 1e3, unit: "ms", note: note),
            BenchResult(name: "replay/state(at:) random seq, p99", value: Measure.quantile(cold, 0.99) * 1e3, unit: "ms", note: "goal < 5 ms"),
            BenchResult(name: "replay/state(at:) random seq, max", value: Measure.quantile(cold, 1) * 1e3, unit: "ms", note: "of 2,000 queries"),
            BenchResult(name: "replay/state(at:) next seq, cached, p50", value: Measure.quantile(forward, 0.5) * 1e6, unit: "µs",
                        note: "one patch forward; p99 \(String(format: "%.1f", Measure.quantile(forward, 0.99) * 1e6)) µs"),
            BenchResult(name: "replay/state(at:) previous seq, cached, p50", value: Measure.quantile(backward, 0.5) * 1e6, unit: "µs",
                        note: "one inverse patch back; p99 \(String(format: "%.1f", Measure.quantile(backward, 0.99) * 1e6)) µs"),
            BenchResult(name: "replay/find over 1,000,000 events", value: (findSeconds * 100).rounded() / 100, unit: "s",
                        baseline: (rebuildSeconds * 100).rounded() / 100, ratio: rebuildSeconds / findSeconds,
                        note: "/items/3/title changed: \(found.hits.count) hits; baseline: state(at:) of every seq in turn, cached; goal: a few seconds"),
            BenchResult(name: "replay/build the 1,000,000-event session", value: buildSeconds, unit: "s",
                        note: "EventBuilder + LogWriter, batches of 500; file \(fileBytes / 1_000_000) MB"),
        ]
    }
}
