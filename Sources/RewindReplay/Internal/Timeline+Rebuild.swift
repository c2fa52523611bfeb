import RewindJSON
import RewindLog

extension Timeline {
    /// ``state(at:)`` with the lock held, which guards `memo`.
    func rebuiltState(at seq: Int64, memo: inout Memo) throws(ReplayError) -> JSONValue {
        if let cached = memo.cache.state(at: seq) { return cached.state }
        try checkRange(seq, memo: &memo)
        let neighbours = memo.cache.neighbours(of: seq)
        let keyframeCost = RebuildPlan.keyframeCost(stateBytes: memo.stateBytesEstimate)
        let nearestCached = [neighbours.below, neighbours.above].compactMap { $0 }.map { abs($0 - seq) }.min()
        // A keyframe costs at least `keyframeCost`: a cached state that close wins without a probe.
        let (before, after) = nearestCached.map { $0 <= keyframeCost } == true ? (nil, nil) : try keyframes(around: seq, memo: &memo)
        guard let plan = RebuildPlan.cheapest(
            target: seq, cachedBelow: neighbours.below, cachedAbove: neighbours.above,
            keyframeBefore: before, keyframeAfter: after, keyframeCost: keyframeCost)
        else {
            throw .brokenChain(session: sessionID, seq: seq, reason: "the session has no keyframe to start from")
        }
        var (state, bytes) = try startingState(plan, memo: &memo)
        if plan.from != plan.target {
            let descending = plan.from > plan.target
            let range = descending ? (plan.target + 1, plan.from) : (plan.from + 1, plan.target)
            try walkChain(from: range.0, to: range.1, descending: descending, unparsable: .doesNotApply, state: &state) { row, _, _ in
                // An add's patch carries the value and its inverse only the path (and the other
                // way round for a remove), so their difference follows the state's growth.
                let growth = row.patchBytes - row.inverseBytes
                bytes = max(2, bytes + (descending ? -growth : growth))
                return true
            }
        }
        memo.lastPlan = plan
        memo.stateBytesEstimate = bytes
        memo.cache.insert(state, bytes: bytes, at: seq)
        return state
    }

    /// Throws unless `seq` is stored; asks the log only past the highest seq seen stored.
    private func checkRange(_ seq: Int64, memo: inout Memo) throws(ReplayError) {
        guard seq < 0 || seq > memo.knownLastSeq else { return }
        let last = try readingLog { () throws(LogError) in try reader.lastSeq(session: sessionID) }
        guard let last, seq >= 0, seq <= last else {
            throw .seqOutOfRange(session: sessionID, seq: seq, lastSeq: last)
        }
        memo.knownLastSeq = last
    }

    /// The nearest keyframes at or before `seq` and at or after it. Keyframes are only ever
    /// added after the last event, so two found around one seq hold for every seq between them.
    private func keyframes(around seq: Int64, memo: inout Memo) throws(ReplayError) -> (before: Int64?, after: Int64?) {
        if let bracket = memo.keyframeBracket, bracket.before <= seq, seq <= bracket.after {
            if seq == bracket.before || seq == bracket.after { return (seq, seq) }
            return bracket
        }
        let session = sessionID
        let found = try readingLog { () throws(LogError) in
            (try reader.keyframeSeq(atOrBefore: seq, session: session), try reader.keyframeSeq(atOrAfter: seq, session: session))
        }
        if let before = found.0, let after = found.1 { memo.keyframeBracket = (before, after) }
        return found
    }

    private func startingState(_ plan: RebuildPlan, memo: inout Memo) throws(ReplayError) -> (JSONValue, Int) {
        switch plan.start {
        case .cached:
            guard let cached = memo.cache.state(at: plan.from) else {
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
}
