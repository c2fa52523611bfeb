import Foundation
import Rewind
import RewindJSON
import RewindSupport

/// The "store" group: what recording adds to `Store.send`, how fast the recorder's thread turns
/// states into log events, and how much memory a flood holds.
///
/// The reducer toggles one item of an array, as UI actions do: a small change to one container
/// of the state. Both states use the same shape; only the number and size of items differ.
enum StoreBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "store", run: { try MainActor.assumeIsolated { try run() } }) }

    /// The recorder's thread alone at 1 MB and 10 MB (issue 18's goals: ≥ 2,000 and ≥ 200
    /// states/s), without the rest of the store group: `rewind-bench --filter recorder`.
    static var recorderGroup: BenchGroup {
        BenchGroup(name: "recorder") { try MainActor.assumeIsolated { try recorderFigures() } }
    }

    @MainActor
    static func recorderFigures() throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-recorder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var results: [BenchResult] = []
        for (label, bytes, count, goal) in [("1 MB", 1_000_000, 200, "2,000"), ("10 MB", 10_000_000, 60, "200")] {
            let state = State(bytes: bytes)
            let size = try JSONValueEncoder().encode(state).serializedBytes().count
            let path = { (name: String) in directory.appendingPathComponent("\(bytes)-\(name).db").path }
            // The baseline encodes every state whole, as recorders did before they reused the
            // encodings of unchanged parts.
            let whole = recorderThroughput(state, count: count, path: path("whole"), reuse: false)
            let reusing = recorderThroughput(state, count: count, path: path("reusing"), reuse: true)
            results.append(BenchResult(name: "recorder/\(label) state", value: reusing.rounded(), unit: "states/s",
                                       baseline: whole.rounded(), ratio: reusing / whole,
                                       note: "\(count) states; state \(size) bytes; baseline: every state encoded whole; goal ≥ \(goal)"))
        }
        // What reuse costs when nothing can be reused: every item changes in every state.
        let state = State(bytes: 1_000_000)
        let path = { (name: String) in directory.appendingPathComponent("all-\(name).db").path }
        let whole = recorderThroughput(state, count: 100, path: path("whole"), reuse: false, action: .toggleAll)
        let reusing = recorderThroughput(state, count: 100, path: path("reusing"), reuse: true, action: .toggleAll)
        results.append(BenchResult(name: "recorder/1 MB state, every item changed", value: reusing.rounded(), unit: "states/s",
                                   baseline: whole.rounded(), ratio: reusing / whole,
                                   note: "100 states; the worst case for reuse; baseline: every state encoded whole"))
        return results
    }

    struct Item: Codable, Sendable {
        var id: Int
        var title: String
        var done: Bool
    }

    struct State: Codable, Sendable {
        var selected = 0
        var items: [Item]

        /// About `bytes` of compact JSON.
        init(bytes: Int) {
            let titleLength = bytes >= 100_000 ? 1_000 : 60
            let count = max(1, bytes / (titleLength + 40))
            items = (0..<count).map { Item(id: $0, title: String(repeating: "t", count: titleLength - 10) + String($0).leftPad(10), done: false) }
        }
    }

    enum Action: Codable, Sendable {
        case toggle(Int)
        case toggleAll
    }

    static let reducer: Reducer<State, Action> = { state, action in
        switch action {
        case .toggle(let index):
            let slot = index % state.items.count
            state.items[slot].done.toggle()
            state.selected = slot
        case .toggleAll:
            for index in state.items.indices { state.items[index].done.toggle() }
        }
        return .none
    }

    @MainActor
    static func run() throws -> [BenchResult] {
        let folder = try BenchFolder("store")
        let freshPath = folder.freshPath

        var results: [BenchResult] = []
        // Peak memory first: VmHWM is a high-water mark, so it is reset just before the flood.
        results += flood(path: freshPath())
        var uiPace: [String: Double] = [:]
        for (label, bytes, tightCount, throughputCount) in [("1 KB", 1_000, 20_000, 20_000), ("1 MB", 1_000_000, 1_000, 100)] {
            let state = State(bytes: bytes)
            let size = try JSONValueEncoder().encode(state).serializedBytes().count
            let sizeNote = "state \(size) bytes"
            let (off, on, added, offP10, onP10) = sendAtUIPace(state, path: freshPath())
            uiPace[label] = added
            results.append(BenchResult(name: "store/send \(label), recording (UI pace)", value: on.rounded(), unit: "ns",
                                       baseline: off.rounded(), ratio: on / off,
                                       note: "median; baseline: recording off; p10 \(Int(onP10.rounded())) vs \(Int(offP10.rounded())); \(sizeNote)"))
            results.append(BenchResult(name: "store/send \(label), added by recording", value: added.rounded(), unit: "ns",
                                       note: "UI pace, paired per round, both orders; goal < 1,000"))
            if bytes == 1_000 {
                let (without, with, journal) = crashJournalShare(state, paths: (freshPath(), freshPath()))
                results.append(BenchResult(name: "store/send \(label), added by the crash journal", value: journal.rounded(), unit: "ns",
                                           baseline: without.rounded(), ratio: with / without,
                                           note: "UI pace, paired per round, both orders; baseline: recording without the journal; goal < 1,000"))
            }
            let (tightOff, tightOn, dropped) = sendInTightLoop(state, count: tightCount, path: freshPath())
            results.append(BenchResult(name: "store/send \(label), recording (tight loop)", value: tightOn.rounded(), unit: "ns",
                                       baseline: tightOff.rounded(), ratio: tightOn / tightOff,
                                       note: "mean of \(tightCount); baseline: off; queued snapshots make the reducer copy; \(dropped) coalesced"))
            let held = recordWhileHeld(state, count: 5_000, path: freshPath())
            results.append(BenchResult(name: "store/record \(label), recorder thread held", value: held.rounded(), unit: "ns",
                                       note: "mean of Recorder.record alone, nothing read on another core"))
            let rate = recorderThroughput(state, count: throughputCount, path: freshPath())
            results.append(BenchResult(name: "store/recorder \(label)", value: rate.rounded(), unit: "states/s",
                                       note: "encode, diff, redact nothing, write to a log file; state hash version 2; \(sizeNote)"))
            // The state hash alone, each version on the same encoded state.
            let json = try JSONValueEncoder().encode(state)
            let v1 = Measure.median { blackHole(json.stableHash) }
            let v2 = Measure.median { blackHole(json.treeHash) }
            results.append(BenchResult(name: "store/state hash \(label), version 2", value: (v2 * 1e9).rounded(), unit: "ns",
                                       baseline: (v1 * 1e9).rounded(), ratio: v2 / v1,
                                       note: "median; baseline: version 1 (FNV-1a over the canonical text)"))
        }
        results += fieldReads()
        if let small = uiPace["1 KB"], let large = uiPace["1 MB"] {
            results.append(BenchResult(name: "store/added by recording, 1 MB vs 1 KB", value: (large / small * 100).rounded() / 100,
                                       unit: "x", note: "UI pace; goal ≤ 2"))
        }
        return results
    }

    /// What per-field observation would cost a read, against today's whole-state observation:
    /// a view reading `store.selected` registers `\Store.state` (made once per store); per field,
    /// it would have to register `\Store.state` appended with the field's key path, which Swift
    /// builds at run time on every read of a generic store, and the store would compare every
    /// observed field after each action to know which changed.
    @MainActor
    static func fieldReads() -> [BenchResult] {
        let store = Store(initialState: State(bytes: 1_000), reducer: reducer)
        let reads = 100_000
        let whole = Measure.median {
            var sum = 0
            for _ in 0..<reads { sum &+= store.selected }
            blackHole(sum)
        } / Double(reads) * 1e9
        let field: KeyPath<State, Int> = \.selected
        let perField = Measure.median {
            var sum = 0
            for _ in 0..<reads {
                let path = (\Store<State, Action>.state).appending(path: field)
                sum &+= store[keyPath: path]
            }
            blackHole(sum)
        } / Double(reads) * 1e9
        return [BenchResult(name: "store/read a field, per-field key path", value: (perField * 10).rounded() / 10, unit: "ns",
                            baseline: (whole * 10).rounded() / 10, ratio: perField / whole,
                            note: "baseline: store.selected, observed as the whole state; per field: \\Store.state appended with \\.selected per read")]
    }

    /// Median cost of one `send` when the recorder has caught up before each (as between taps),
    /// with recording off and on, alternated in rounds.
    @MainActor
    static func sendAtUIPace(_ state: State, path: String) -> (off: Double, on: Double, added: Double, offP10: Double, onP10: Double) {
        let plain = Store(initialState: state, reducer: reducer)
        let recorded = Store(initialState: state, reducer: reducer)
        let recorder = recorded.record(to: .file(path), app: "bench")
        defer { recorder.stop() }
        // Each round waits for the recorder to encode and diff the whole state: fewer for 1 MB.
        let rounds = state.items.count > 100 ? 300 : 2_000
        let paired = pairedAtUIPace(rounds: rounds, settle: { recorder.flush() },
                                    baseline: { plain.send(.toggle($0)) }, measured: { recorded.send(.toggle($0)) })
        return (paired.baseline, paired.measured, paired.added, paired.baselineP10, paired.measuredP10)
    }

    /// One send of `baseline` and one of `measured` a round, `rounds` times, at UI pace: each
    /// round waits for `settle` (the recorder has written the previous state and let go of its
    /// snapshot) and half a millisecond, the time between two taps. Medians (ns) of each, their
    /// p10s, and what `measured` adds, paired per round: the first send after the pause runs on a
    /// colder core, so each order is biased by the same amount in opposite directions, and the
    /// two orders' medians are averaged.
    @MainActor
    static func pairedAtUIPace(rounds: Int, settle: () -> Void, baseline: (Int) -> Void, measured: (Int) -> Void)
        -> (baseline: Double, measured: Double, added: Double, baselineP10: Double, measuredP10: Double) {
        var baselineSamples: [Double] = []
        var measuredSamples: [Double] = []
        var addedMeasuredFirst: [Double] = []
        var addedBaselineFirst: [Double] = []
        settle()
        for index in 0..<rounds {
            settle()
            Thread.sleep(forTimeInterval: 0.000_5)
            // A core that just slept runs its first microseconds slowly: spin it awake first.
            let awake = MonotonicClock.seconds() + 0.000_05
            while MonotonicClock.seconds() < awake {}
            let measuredFirst = index % 2 == 1
            var measuredTime = 0.0
            var baselineTime = 0.0
            for measuredTurn in measuredFirst ? [true, false] : [false, true] {
                let t0 = MonotonicClock.seconds()
                if measuredTurn {
                    measured(index)
                    measuredTime = MonotonicClock.seconds() - t0
                } else {
                    baseline(index)
                    baselineTime = MonotonicClock.seconds() - t0
                }
            }
            measuredSamples.append(measuredTime)
            baselineSamples.append(baselineTime)
            if measuredFirst { addedMeasuredFirst.append(measuredTime - baselineTime) } else { addedBaselineFirst.append(measuredTime - baselineTime) }
        }
        let added = (Measure.quantile(addedMeasuredFirst, 0.5) + Measure.quantile(addedBaselineFirst, 0.5)) / 2
        return (Measure.quantile(baselineSamples, 0.5) * 1e9, Measure.quantile(measuredSamples, 0.5) * 1e9, added * 1e9,
                Measure.quantile(baselineSamples, 0.1) * 1e9, Measure.quantile(measuredSamples, 0.1) * 1e9)
    }

    /// `send` at UI pace on two recording stores, one keeping a crash journal and one not,
    /// alternated and paired per round (``pairedAtUIPace(rounds:settle:baseline:measured:)``):
    /// the medians without and with it, and what the journal adds (ns).
    @MainActor
    static func crashJournalShare(_ state: State, paths: (String, String)) -> (without: Double, with: Double, added: Double) {
        var options = RecorderOptions()
        options.keepsCrashJournal = false
        let bare = Store(initialState: state, reducer: reducer)
        let bareRecorder = Recorder<State, Action>(initialState: state, to: .file(paths.0), metadata: RecordingMetadata(app: "bench"),
                                                   options: options)
        bare.attach(bareRecorder)
        let journaled = Store(initialState: state, reducer: reducer)
        let journaledRecorder = Recorder<State, Action>(initialState: state, to: .file(paths.1), metadata: RecordingMetadata(app: "bench"))
        journaled.attach(journaledRecorder)
        defer {
            bareRecorder.stop()
            journaledRecorder.stop()
        }
        let paired = pairedAtUIPace(rounds: 2_000, settle: {
            bareRecorder.flush()
            journaledRecorder.flush()
        }, baseline: { bare.send(.toggle($0)) }, measured: { journaled.send(.toggle($0)) })
        return (paired.baseline, paired.measured, paired.added)
    }

    /// Mean cost of `count` sends in a row: the recorder falls behind, so the snapshots it holds
    /// share the state's buffers and each reducer run copies the array it mutates.
    @MainActor
    static func sendInTightLoop(_ state: State, count: Int, path: String) -> (off: Double, on: Double, coalesced: Int) {
        let plain = Store(initialState: state, reducer: reducer)
        var t0 = MonotonicClock.seconds()
        for index in 0..<count { plain.send(.toggle(index)) }
        let off = (MonotonicClock.seconds() - t0) / Double(count)
        let recorded = Store(initialState: state, reducer: reducer)
        let recorder = recorded.record(to: .file(path), app: "bench")
        recorder.flush()
        t0 = MonotonicClock.seconds()
        for index in 0..<count { recorded.send(.toggle(index)) }
        let on = (MonotonicClock.seconds() - t0) / Double(count)
        recorder.stop()
        return (off * 1e9, on * 1e9, recorder.coalescedCount)
    }

    /// The cost of `Recorder.record` itself: the recorder's thread is held before it reads
    /// anything, so no cache line moves between cores.
    @MainActor
    static func recordWhileHeld(_ state: State, count: Int, path: String) -> Double {
        let gate = HeldSink(LogFileSink(path: path))
        let recorder = Recorder<State, Action>(initialState: state, to: .sinks([gate]), metadata: RecordingMetadata(app: "bench"),
                                               options: RecorderOptions(queueCapacity: count + 1))
        let t0 = MonotonicClock.seconds()
        for index in 0..<count { recorder.record(.toggle(index), state: state) }
        let seconds = MonotonicClock.seconds() - t0
        gate.release()
        recorder.stop()
        return seconds / Double(count) * 1e9
    }

    /// States per second through the recorder's thread into a log file, from the first
    /// `record` to the end of the flush.
    @MainActor
    static func recorderThroughput(_ state: State, count: Int, path: String, reuse: Bool = true, action: Action? = nil) -> Double {
        var states: [State] = []
        var current = state
        for index in 0..<count {
            _ = reducer(&current, action ?? .toggle(index))
            states.append(current)
        }
        let recorder = Recorder<State, Action>(initialState: state, to: .file(path), metadata: RecordingMetadata(app: "bench"),
                                               options: RecorderOptions(queueCapacity: count + 1, reusesUnchangedEncodings: reuse))
        recorder.flush()
        let t0 = MonotonicClock.seconds()
        for index in 0..<count { recorder.record(action ?? .toggle(index), state: states[index]) }
        recorder.flush()
        let seconds = MonotonicClock.seconds() - t0
        recorder.stop()
        return Double(count) / seconds
    }

    /// Peak resident memory while 100,000 actions flood a recording store (1 KB state, default
    /// queue of 10,000 snapshots), against the same process just before.
    @MainActor
    static func flood(path: String) -> [BenchResult] {
        let state = State(bytes: 1_000)
        let store = Store(initialState: state, reducer: reducer)
        let recorder = store.record(to: .file(path), app: "bench")
        recorder.flush()
        let reset = ProcessMemory.resetPeak()
        let before = ProcessMemory.current()
        let t0 = MonotonicClock.seconds()
        for index in 0..<100_000 { store.send(.toggle(index)) }
        let sendSeconds = MonotonicClock.seconds() - t0
        recorder.flush()
        let peak = ProcessMemory.peak()
        recorder.stop()
        guard reset, let before, let peak else {
            return [BenchResult(name: "store/flood peak memory", value: 0, unit: "MB", note: "VmHWM unavailable")]
        }
        return [
            BenchResult(name: "store/flood 100,000 actions, peak RSS", value: (Double(peak) / 1e6 * 10).rounded() / 10, unit: "MB",
                        baseline: (Double(before) / 1e6 * 10).rounded() / 10, ratio: Double(peak) / Double(before),
                        note: "baseline: RSS before; +\(Int((Double(peak - before) / 1e6).rounded())) MB; \(recorder.coalescedCount) coalesced"),
            BenchResult(name: "store/flood 100,000 actions, send", value: (sendSeconds / 100_000 * 1e9).rounded(), unit: "ns",
                        note: "mean per send while the recorder falls behind"),
        ]
    }
}

/// Holds the recorder's thread in `begin` until released.
final class HeldSink: SessionSink, @unchecked Sendable {
    private let inner: any SessionSink
    private let gate = DispatchSemaphore(value: 0)

    init(_ inner: any SessionSink) { self.inner = inner }
    func release() { gate.signal() }
    func begin(_ session: RecordingSession) throws {
        gate.wait()
        try inner.begin(session)
    }
    func write(_ events: [RecordedEvent], of session: RecordingSession) throws { try inner.write(events, of: session) }
    func flush() throws { try inner.flush() }
    func end(_ session: RecordingSession, at date: Date) throws { try inner.end(session, at: date) }
}

/// Resident memory of this process, from /proc/self/status (Linux).
enum ProcessMemory {
    /// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    static func current() -> Int? { field("VmRSS") }
    static func peak() -> Int? { field("VmHWM") }

    /// A `kB` field of /proc/self/status, in bytes.
    private static func field(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1_024 }
        }
        return nil
    }
}
