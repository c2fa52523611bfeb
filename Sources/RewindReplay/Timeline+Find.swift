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
        try locked { _ throws(ReplayError) in
            try findLocked(path: path, condition: condition, all: all, first: first, limit: limit, deadline: deadline)
        }
    }

    /// ``find(path:condition:all:first:limit:deadline:)`` with the lock held.
    private func findLocked(path: JSONPointer, condition: FindCondition, all: Bool, first: Bool,
                            limit: Int?, deadline: ContinuousClock.Instant?) throws(ReplayError) -> FindResult {
        guard let last = try lastSeq() else {
            return FindResult(hits: [], scannedThrough: -1, lastSeq: -1, complete: true)
        }
        var state = try initialState()
        // Kept for a path that never exists: its nearest may be there (copy-on-write: shared).
        let initialState = state
        var scan = FindScan(path: path, condition: condition, all: all)
        scan.deadline = deadline
        var hits: [FindHit] = []
        var stopped: String?
        var ranOutInsideSeq = false
        let clock = ContinuousClock()
        let next = try walkChain(from: 0, to: last, startsAtKeyframe: true, state: &state) { row, patch, state throws(LogError) in
            if patch == nil {
                if let kind = scan.start(value: path.resolve(in: state)) {
                    hits.append(FindHit(kind: kind, seq: 0, at: row.at, actionType: row.actionType, action: try row.action(),
                                        value: scan.value, previous: nil))
                }
            } else if let patch, patch.operations.contains(where: scan.mayChange),
                      let (kind, previous) = scan.step(value: path.resolve(in: state)) {
                hits.append(FindHit(kind: kind, seq: row.seq, at: row.at, actionType: row.actionType,
                                    action: try row.action(), value: scan.value, previous: previous))
            }
            if scan.ranOutOfTime {
                // A match stopped at the deadline inside this seq: it was not judged.
                ranOutInsideSeq = true
                stopped = "time"
                return false
            }
            if first, !hits.isEmpty { stopped = "first"; return false }
            if let limit, hits.count >= limit { stopped = "limit"; return false }
            // Not before the first 256 seqs: a query that waited in a busy server's queue past its
            // budget still answers with some of the walk (and where to go on), not with nothing.
            if let deadline, row.seq > 0, row.seq % 256 == 0, clock.now >= deadline { stopped = "time"; return false }
            return true
        }
        let scanned = next - 1 - (ranOutInsideSeq ? 1 : 0)
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
