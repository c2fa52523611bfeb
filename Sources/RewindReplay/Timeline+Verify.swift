import RewindJSON
import RewindLog

extension Timeline {
    /// Replays the whole session and checks its record: seqs gap-free from 0, a keyframe at seq 0,
    /// every patch and inverse a JSON Patch that applies, every inverse leading back to the state
    /// before its event, every stored hash equal to the ``JSONValue/stableHash`` of the state the
    /// patches give, and every keyframe equal to that state. Events whose state was coalesced
    /// (an empty patch, the previous state's hash) pass the same checks.
    ///
    /// It stops at the first problem by seq and reports it; it throws only when the log cannot be
    /// read at all (SQLite's own errors, such as a damaged page).
    ///
    /// ```swift
    /// let report = try timeline.verify { print("\($0.checked)/\($0.total)") }
    /// if let problem = report.problem { print(problem) }  // seq 1203: hash does not match the state the patches give
    /// ```
    ///
    /// - Parameter progress: called every 256 events and once at the end.
    public func verify(progress: ((VerifyProgress) -> Void)? = nil) throws(ReplayError) -> VerifyReport {
        try locked { _ throws(ReplayError) in try verifyLocked(progress: progress) }
    }

    /// ``verify(progress:)`` with the lock held.
    private func verifyLocked(progress: ((VerifyProgress) -> Void)?) throws(ReplayError) -> VerifyReport {
        let session = sessionID
        let total = Int(try readingLog { () throws(LogError) in try reader.lastSeq(session: session) }.map { $0 + 1 } ?? 0)
        let hashVersion = try readingLog { () throws(LogError) in try reader.session(id: session).hashVersion }
        var checker = ChainChecker(hashVersion: hashVersion)
        try readingLog { () throws(LogError) in
            try reader.walkEvents(session: session, from: Int64.min, to: Int64.max, includeKeyframes: true) { row in
                let keepGoing = checker.check(row)
                if let progress, checker.checked % 256 == 0 || !keepGoing {
                    progress(VerifyProgress(checked: checker.checked, total: max(total, checker.checked)))
                }
                return keepGoing
            }
        }
        if checker.problem == nil, checker.checked % 256 != 0 || checker.checked == 0 {
            progress?(VerifyProgress(checked: checker.checked, total: max(total, checker.checked)))
        }
        var problem = checker.problem
        let orphan = try readingLog { () throws(LogError) in try reader.firstKeyframeWithoutEvent(session: session) }
        if let orphan, orphan < problem?.seq ?? Int64.max {
            problem = VerifyProblem(seq: orphan, kind: .orphanKeyframe, message: "a keyframe is stored, but no event")
        }
        return VerifyReport(sessionID: session, eventsChecked: checker.checked, keyframesChecked: checker.keyframes, problem: problem)
    }
}

/// Checks one session's rows in seq order, keeping the state the patches give.
struct ChainChecker {
    private(set) var problem: VerifyProblem?
    private(set) var checked = 0
    private(set) var keyframes = 0
    private var expected: Int64 = 0
    private var state: JSONValue = .null
    /// The stable hash of `state`, computed or (for an empty patch) carried over.
    private var stateHash: UInt64 = 0
    /// The state hash the session's events carry.
    let hashVersion: StateHashVersion

    init(hashVersion: StateHashVersion = .v1) {
        self.hashVersion = hashVersion
    }

    /// Checks the next row; `false` (with ``problem`` set) when it is wrong.
    mutating func check(_ row: EventRowView) -> Bool {
        let seq = row.seq
        guard seq == expected else {
            problem = seq > expected
                ? VerifyProblem(seq: expected, kind: .missingSeq, message: "no event is stored, but seq \(seq) is")
                : VerifyProblem(seq: seq, kind: .unexpectedSeq, message: "stored again, or out of order, after seq \(expected - 1)")
            return false
        }
        if let problem = step(row) {
            self.problem = problem
            return false
        }
        checked += 1
        expected += 1
        return true
    }

    private mutating func step(_ row: EventRowView) -> VerifyProblem? {
        let seq = row.seq
        let keyframe: JSONValue?
        do {
            keyframe = try row.keyframe()?.state
        } catch {
            return VerifyProblem(seq: seq, kind: .unreadable, message: "the stored keyframe is not valid JSON: \(error.message)")
        }
        let patchText: JSONValue
        let inverseText: JSONValue
        do {
            patchText = try row.patch()
        } catch {
            return VerifyProblem(seq: seq, kind: .unreadable, message: "the stored patch is not valid JSON: \(error.message)")
        }
        do {
            inverseText = try row.inverse()
        } catch {
            return VerifyProblem(seq: seq, kind: .unreadable, message: "the stored inverse patch is not valid JSON: \(error.message)")
        }
        let patch: JSONPatch
        let inverse: JSONPatch
        do {
            patch = try JSONPatch(json: patchText)
        } catch {
            return VerifyProblem(seq: seq, kind: .invalidPatch, message: "the patch is not a JSON Patch: \(error)")
        }
        do {
            inverse = try JSONPatch(json: inverseText)
        } catch {
            return VerifyProblem(seq: seq, kind: .invalidPatch, message: "the inverse patch is not a JSON Patch: \(error)")
        }
        if seq == 0 {
            guard let keyframe else {
                return VerifyProblem(seq: 0, kind: .missingInitialKeyframe, message: "no keyframe holds the initial state")
            }
            guard patch.isEmpty, inverse.isEmpty else {
                return VerifyProblem(seq: 0, kind: .invalidPatch, message: "the initial state's patch and inverse must be empty")
            }
            state = keyframe
            stateHash = state.hash(hashVersion)
        } else {
            let previous = state
            do {
                try state.apply(patch)
            } catch {
                return VerifyProblem(seq: seq, kind: .patchDoesNotApply, message: "the patch does not apply to the state before it: \(error)")
            }
            if !patch.isEmpty || !inverse.isEmpty {
                var back = state
                do {
                    try back.apply(inverse)
                } catch {
                    return VerifyProblem(seq: seq, kind: .inverseMismatch, message: "the inverse patch does not apply to the state after it: \(error)")
                }
                guard back.isEqual(sharingBuffersWith: previous) else {
                    return VerifyProblem(seq: seq, kind: .inverseMismatch, message: "the inverse patch does not lead back to the state before it")
                }
            }
            // An empty patch (a coalesced event) leaves the state, and so its hash, as it was.
            if !patch.isEmpty { stateHash = state.hash(hashVersion) }
        }
        guard row.hash == stateHash else {
            return VerifyProblem(seq: seq, kind: .hashMismatch, message: "hash does not match the state the patches give")
        }
        if let keyframe {
            keyframes += 1
            guard seq == 0 || keyframe == state else {
                return VerifyProblem(seq: seq, kind: .keyframeMismatch, message: "the keyframe differs from the state the patches give")
            }
        }
        return nil
    }
}
