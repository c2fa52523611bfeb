import RewindJSON
import RewindLog

extension Timeline {
    /// ``state(at:)`` with the lock held.
    func lockedState(at seq: Int64) throws(ReplayError) -> JSONValue {
        if let cached = cache.state(at: seq) { return cached.state }
        let last = try readingLog { () throws(LogError) in try reader.lastSeq(session: sessionID) }
        guard let last, seq >= 0, seq <= last else {
            throw .seqOutOfRange(session: sessionID, seq: seq, lastSeq: last)
        }
        let (before, after) = try readingLog { () throws(LogError) in
            (try reader.keyframeSeq(atOrBefore: seq, session: sessionID),
             try reader.keyframeSeq(atOrAfter: seq, session: sessionID))
        }
        let neighbours = cache.neighbours(of: seq)
        guard let plan = RebuildPlan.cheapest(
            target: seq, cachedBelow: neighbours.below, cachedAbove: neighbours.above,
            keyframeBefore: before, keyframeAfter: after,
            keyframeCost: RebuildPlan.keyframeCost(stateBytes: stateBytesEstimate))
        else {
            throw .brokenChain(session: sessionID, seq: seq, reason: "the session has no keyframe to start from")
        }
        var (state, bytes) = try startingState(plan)
        if plan.from < plan.target {
            try walk(from: plan.from + 1, to: plan.target, descending: false, state: &state, bytes: &bytes)
        } else if plan.from > plan.target {
            try walk(from: plan.target + 1, to: plan.from, descending: true, state: &state, bytes: &bytes)
        }
        lastPlan = plan
        stateBytesEstimate = bytes
        cache.insert(state, bytes: bytes, at: seq)
        return state
    }

    private func startingState(_ plan: RebuildPlan) throws(ReplayError) -> (JSONValue, Int) {
        switch plan.start {
        case .cached:
            guard let cached = cache.state(at: plan.from) else {
                preconditionFailure("the plan starts from seq \(plan.from), which the cache no longer holds")
            }
            return cached
        case .keyframe:
            let keyframe = try readingLog { () throws(LogError) in try reader.keyframeState(session: sessionID, seq: plan.from) }
            guard let keyframe else {
                throw .brokenChain(session: sessionID, seq: plan.target, reason: "the keyframe at seq \(plan.from) vanished")
            }
            return keyframe
        }
    }

    /// Applies the patches of `from…to` to `state` in place: forward patches in ascending order,
    /// or, `descending`, inverse patches from `to` down to `from` (each takes state `seq` to
    /// `seq - 1`). `bytes` follows the state's approximate size.
    func walk(from: Int64, to: Int64, descending: Bool, state: inout JSONValue, bytes: inout Int) throws(ReplayError) {
        var expected = descending ? to : from
        var failure: ReplayError?
        let session = sessionID
        try readingLog { () throws(LogError) in
            try reader.walkEvents(session: session, from: from, to: to, descending: descending) { row throws(LogError) in
                guard row.seq == expected else {
                    failure = .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing")
                    return false
                }
                let text = try descending ? row.inverse() : row.patch()
                do {
                    try state.apply(try JSONPatch(json: text))
                } catch {
                    let which = descending ? "inverse patch" : "patch"
                    failure = .brokenChain(session: session, seq: expected, reason: "its \(which) does not apply: \(error)")
                    return false
                }
                // An add's patch carries the value and its inverse only the path (and the other
                // way round for a remove), so their difference follows the state's growth.
                let growth = row.patchBytes - row.inverseBytes
                bytes = max(2, bytes + (descending ? -growth : growth))
                expected += descending ? -1 : 1
                return true
            }
        }
        if let failure { throw failure }
        let missing = descending ? expected >= from : expected <= to
        if missing {
            throw .brokenChain(session: sessionID, seq: expected, reason: "seq \(expected) is missing")
        }
    }
}
