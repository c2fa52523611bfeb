import Foundation
import RewindJSON
import RewindLog

extension Timeline {
    /// Every seq where `condition` starts to hold for the value at `path` (with `all`, also
    /// where it stops), or, for ``FindCondition/changed``, every seq where that value changed.
    ///
    /// It reads the keyframe at seq 0 once and walks the patches forward, applying each in
    /// place; the value at `path` is resolved only after an event whose patch may change it (it
    /// acts on the path, an ancestor, a descendant, or shifts an array that holds the path). No
    /// state is rebuilt.
    ///
    /// ```swift
    /// let result = try timeline.find(path: JSONPointer("/cart/total"), condition: .lessThan(0))
    /// for hit in result.hits { print(hit.seq, hit.actionType, hit.value ?? "absent") }
    /// ```
    ///
    /// - Parameters:
    ///   - first: stop at the first hit.
    ///   - limit: stop after this many hits (`complete` is then `false`).
    ///   - deadline: stop when this time passes (`complete` is then `false`).
    public func find(path: JSONPointer, condition: FindCondition, all: Bool = false, first: Bool = false,
                     limit: Int? = nil, deadline: ContinuousClock.Instant? = nil) throws(ReplayError) -> FindResult {
        lock.lock()
        defer { lock.unlock() }
        let session = sessionID
        guard let last = try readingLog({ () throws(LogError) in try reader.lastSeq(session: session) }) else {
            return FindResult(hits: [], scannedThrough: -1, lastSeq: -1, complete: true)
        }
        let initial = try readingLog { () throws(LogError) in try reader.keyframeState(session: session, seq: 0) }
        guard var state = initial?.state else {
            throw .brokenChain(session: session, seq: 0, reason: "no keyframe holds the initial state")
        }
        // Kept for a path that never exists: its nearest may be there (copy-on-write: shared).
        let initialState = state
        var scan = FindScan(path: path, condition: condition, all: all)
        scan.deadline = deadline
        var hits: [FindHit] = []
        var expected: Int64 = 0
        var failure: ReplayError?
        var stopped: String?
        let clock = ContinuousClock()
        try readingLog { () throws(LogError) in
            try reader.walkEvents(session: session, from: 0, to: last) { row throws(LogError) in
                guard row.seq == expected else {
                    failure = .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing")
                    return false
                }
                expected += 1
                if row.seq == 0 {
                    if let kind = scan.start(value: path.resolve(in: state)) {
                        hits.append(FindHit(kind: kind, seq: 0, at: row.at, actionType: row.actionType, action: try row.action(),
                                            value: scan.value, previous: nil))
                    }
                } else {
                    let patch: JSONPatch
                    do {
                        patch = try JSONPatch(json: try row.patch())
                    } catch let error as LogError {
                        throw error
                    } catch {
                        failure = .brokenChain(session: session, seq: row.seq, reason: "its patch is not a JSON Patch: \(error)")
                        return false
                    }
                    do {
                        try state.apply(patch)
                    } catch {
                        failure = .brokenChain(session: session, seq: row.seq, reason: "its patch does not apply: \(error)")
                        return false
                    }
                    if patch.operations.contains(where: scan.mayChange),
                       let (kind, previous) = scan.step(value: path.resolve(in: state)) {
                        hits.append(FindHit(kind: kind, seq: row.seq, at: row.at, actionType: row.actionType,
                                            action: try row.action(), value: scan.value, previous: previous))
                    }
                }
                if scan.ranOutOfTime {
                    // A match stopped at the deadline inside this seq: it was not judged.
                    expected -= 1
                    stopped = "time"
                    return false
                }
                if first, !hits.isEmpty { stopped = "first"; return false }
                if let limit, hits.count >= limit { stopped = "limit"; return false }
                if let deadline, row.seq % 256 == 0, clock.now >= deadline { stopped = "time"; return false }
                return true
            }
        }
        if let failure { throw failure }
        let scanned = expected - 1
        if stopped == nil, scanned < last { throw .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing") }
        let complete = stopped == nil || stopped == "first" || scanned == last
        let because: String? = switch stopped {
        case "limit": "it reached \(limit ?? 0) hits"
        case "time": "it ran out of time at seq \(scanned) of \(last)"
        default: nil
        }
        var result = FindResult(hits: hits, scannedThrough: scanned, lastSeq: last, complete: complete, stoppedBecause: complete ? nil : because)
        result.pathExisted = scan.valueSeen
        if !scan.valueSeen, scanned == last {
            // The deeper of the two suggestions (a key may exist only early, or only late).
            let candidates = [JSONPointer.nearest(to: path, in: state), JSONPointer.nearest(to: path, in: initialState)].compactMap { $0 }
            result.nearestPath = candidates.max { $0.tokens.count < $1.tokens.count }
        }
        return result
    }
}
