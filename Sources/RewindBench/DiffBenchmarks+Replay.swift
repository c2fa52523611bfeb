import RewindJSON
import RewindSupport

/// The log's workload: 1,000 small edits of a ~1 MB state, recorded as patches by diffing each
/// state against the one before (the recorder), then replayed from the first state (the replay
/// engine rebuilding state N from a keyframe).
func runReplayBenchmarks() throws -> [BenchResult] {
    let initial = generatedState(targetBytes: 1_000_000)
    let edits = randomEdits(of: initial, count: 1_000)
    var patches: [JSONPatch] = []
    var state = initial
    for edit in edits {
        let previous = state
        try state.apply(edit)
        patches.append(JSONDiff(from: previous, to: state).forward)
    }
    let final = state
    // Only the diffs are timed: making the edits (copying the containers each one touches) is
    // the app's reducer's cost, not the recorder's.
    var diffSamples: [Double] = []
    let start = MonotonicClock.seconds()
    while diffSamples.count < 5 || MonotonicClock.seconds() - start < 1 {
        var state = initial
        var total = 0.0
        for edit in edits {
            let previous = state
            try state.apply(edit)
            let t0 = MonotonicClock.seconds()
            let diff = JSONDiff(from: previous, to: state)
            total += MonotonicClock.seconds() - t0
            // Dropping the previous state (freeing what the edit copied) stays out of the timing.
            blackHole(diff)
            blackHole(previous)
        }
        diffSamples.append(total * 1e3)
    }
    let diffs = Measure.quantile(diffSamples, 0.5)
    let replay = try Measure.median {
        var state = initial
        for patch in patches { try state.apply(patch) }
        blackHole(state)
    } * 1e3
    var replayed = initial
    for patch in patches { try replayed.apply(patch) }
    guard replayed == final else { throw BenchFailure("replay: the patches do not rebuild the final state") }
    let texts = patches.map { $0.json }
    let decode = try Measure.median {
        for text in texts { blackHole(try JSONPatch(json: text)) }
    } * 1e3
    return [
        BenchResult(name: "diff 1,000 consecutive states (1 MB)", value: diffs, unit: "ms",
                    note: "each state a copy-on-write edit of the last (the recorder)"),
        BenchResult(name: "replay 1,000 patches on a 1 MB state", value: replay, unit: "ms",
                    note: "in place, each patch atomic"),
        BenchResult(name: "decode 1,000 patches from JSON values", value: decode, unit: "ms",
                    note: "JSONPatch(json:) with pointer parsing"),
    ]
}

/// Edits an app would make one action at a time: settings toggled, counters bumped, log entries
/// appended and dropped, users inserted and removed, prices changed.
func randomEdits(of state: JSONValue, count: Int) -> [JSONPatchOperation] {
    var rng = SplitMix64(seed: 99)
    var users = state["users"]?.arrayValue?.count ?? 0
    var log = state["log"]?.arrayValue?.count ?? 0
    let products = state["catalog"]?.objectValue?.count ?? 1
    var edits: [JSONPatchOperation] = []
    func index(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }
    for k in 0..<count {
        let pointer: (String) -> JSONPointer = { JSONPointer(tokens: $0.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)) }
        switch rng.next() % 6 {
        case 0: edits.append(.replace(path: pointer("/users/\(index(users))/settings/theme"), value: "dark"))
        case 1: edits.append(.replace(path: pointer("/users/\(index(users))/stats/logins"), value: .number(JSONNumber(k))))
        case 2:
            edits.append(.add(path: pointer("/log/-"), value: ["seq": .number(JSONNumber(100_000 + k)), "action": "tap", "ok": true]))
            log += 1
        case 3 where log > 1:
            edits.append(.remove(path: pointer("/log/0")))
            log -= 1
        case 4:
            edits.append(.add(path: pointer("/users/\(index(users + 1))"), value: [
                "id": .number(JSONNumber(1_000_000 + k)), "name": "New",
                "settings": ["theme": "light"], "stats": ["logins": 0],
            ]))
            users += 1
        default:
            edits.append(.replace(path: pointer("/catalog/p\(index(products))/price"), value: .number(JSONNumber(k))))
        }
    }
    return edits
}
