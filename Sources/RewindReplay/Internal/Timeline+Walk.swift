import RewindJSON
import RewindLog

extension Timeline {
    /// How a walk words a patch that is not a JSON Patch at all: blame and find say so, while a
    /// rebuild says of it, as of any patch it cannot use, that it does not apply.
    enum UnparsablePatchWording {
        case notAJSONPatch
        case doesNotApply
    }

    /// The state the session starts from: the keyframe at seq 0.
    func initialState() throws(ReplayError) -> JSONValue {
        let session = sessionID
        let initial = try readingLog { () throws(LogError) in try reader.keyframeState(session: session, seq: 0) }
        guard let state = initial?.state else {
            throw .brokenChain(session: session, seq: 0, reason: "no keyframe holds the initial state")
        }
        return state
    }

    /// Walks the session's events `from…to` along their seq chain, applying each event's patch
    /// to `state` in place: its forward patch in ascending order or, `descending`, its inverse
    /// patch from `to` down to `from` (each takes the state after `seq` to the one after
    /// `seq - 1`). This is the one walk of blame, find and a rebuild.
    ///
    /// Each row must carry the next seq of the chain; a gap, a patch that is not a JSON Patch and
    /// one that does not apply are each a ``ReplayError/brokenChain(session:seq:reason:)`` naming
    /// the seq, and so is a chain that ends before `to` (before `from`, descending) unless
    /// `visit` stopped the walk.
    ///
    /// - Parameters:
    ///   - startsAtKeyframe: `state` is the keyframe of seq `from` itself, so that row's patch is
    ///     not applied and `visit` gets it with no patch.
    ///   - willApply: hears each row with its patch and the state before it is applied.
    ///   - visit: hears each row with its patch and the state after it; `false` stops the walk.
    ///     The row is valid only while it runs. Both lend `state` in place, for reading: passing
    ///     a copy would cost a retain and a release per event.
    /// - Returns: the seq after the last one visited (before it, descending).
    @discardableResult
    func walkChain(
        from: Int64, to: Int64, descending: Bool = false, startsAtKeyframe: Bool = false,
        unparsable wording: UnparsablePatchWording = .notAJSONPatch, state: inout JSONValue,
        willApply: ((_ row: EventRowView, _ patch: JSONPatch, _ before: inout JSONValue) -> Void)? = nil,
        _ visit: (_ row: EventRowView, _ patch: JSONPatch?, _ after: inout JSONValue) throws(LogError) -> Bool
    ) throws(ReplayError) -> Int64 {
        let session = sessionID
        var expected = descending ? to : from
        var failure: ReplayError?
        var stopped = false
        try readingLog { () throws(LogError) in
            try reader.walkEvents(session: session, from: from, to: to, descending: descending) { row throws(LogError) in
                guard row.seq == expected else {
                    failure = .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing")
                    return false
                }
                expected += descending ? -1 : 1
                let goOn: Bool
                if startsAtKeyframe && row.seq == from {
                    goOn = try visit(row, nil, &state)
                } else {
                    let text = try descending ? row.inverse() : row.patch()
                    let patch: JSONPatch
                    do {
                        patch = try JSONPatch(json: text)
                    } catch {
                        let problem = wording == .notAJSONPatch ? "is not a JSON Patch" : "does not apply"
                        failure = .brokenChain(session: session, seq: row.seq, reason: "its \(descending ? "inverse patch" : "patch") \(problem): \(error)")
                        return false
                    }
                    willApply?(row, patch, &state)
                    do {
                        try state.apply(patch)
                    } catch {
                        failure = .brokenChain(session: session, seq: row.seq, reason: "its \(descending ? "inverse patch" : "patch") does not apply: \(error)")
                        return false
                    }
                    goOn = try visit(row, patch, &state)
                }
                if !goOn { stopped = true }
                return goOn
            }
        }
        if let failure { throw failure }
        let missing = descending ? expected >= from : expected <= to
        if missing, !stopped {
            throw .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing")
        }
        return expected
    }
}
