import Foundation
import RewindJSON
import RewindLog

/// What a branch did.
public struct BranchReport: Sendable, Equatable {
    /// The uuid of the branch session.
    public var sessionUUID: String
    /// How many actions went through the reducer (the edited ones among them).
    public var actionsApplied: Int
    /// The seqs left out.
    public var skipped: [Int64]
    /// The seqs whose action was replaced.
    public var edited: [Int64]
}

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Recomputes `recording` through the reducer with the actions at `skip` left out and those
    /// in `edits` replaced, without running effects, into a new session recorded where this
    /// store records, linked to the original (`replayOf`, and `branch` in its meta: `of`,
    /// `skipped`, `edited`). The live store is not touched.
    ///
    /// A left-out action keeps its seq, recorded as `{"type": "@@rewind/skipped", "action": …}`
    /// with the state unchanged, so seq N of the branch and of the original line up. Each action
    /// keeps its recorded time, and seq 0 is stamped `startedAt` (the original's seq 0; when
    /// `nil`, the first step's time), so times since the start read as in the original.
    ///
    /// ```swift
    /// let report = try await store.branch(recording, skip: [12], edits: [20: .add(5)])
    /// ```
    ///
    /// - Throws: ``DecodeFailure`` for a state or action that does not decode; ``ReplayError``
    ///   when the store is not recording or a seq is outside the recording.
    @discardableResult
    public func branch(_ recording: Recording, skip: Set<Int64> = [], edits: [Int64: Action] = [:],
                       startedAt: Date? = nil) async throws -> BranchReport {
        guard let live = recorder else {
            throw ReplayError("the store is not recording: a branch is recorded where the app records")
        }
        let last = recording.lastSeq
        for seq in skip.union(edits.keys) where seq < 1 || seq > last {
            throw ReplayError("seq \(seq) is not an action of the recording (1…\(last))")
        }
        var state = try DecodeFailure.decode(State.self, from: recording.initialState, as: .state)
        let actions = try recording.steps.map { step throws(DecodeFailure) in
            try DecodeFailure.decode(Action.self, from: step.action, as: .action(seq: step.seq))
        }
        var extra: JSONObject = live.metadata.extra.objectValue ?? [:]
        extra["branch"] = ["of": recording.sessionUUID.map(JSONValue.string) ?? .null,
                           "skipped": .array(skip.sorted().map { .number(JSONNumber($0)) }),
                           "edited": .array(edits.keys.sorted().map { .number(JSONNumber($0)) })]
        var metadata = live.metadata
        metadata.extra = .object(extra)
        let branch = Recorder<State, Action>(initialState: state, to: .sinks(live.sinks), metadata: metadata,
                                             options: live.options, replayOf: recording.sessionUUID,
                                             startedAt: startedAt ?? recording.steps.first?.at)
        var applied = 0
        for (step, recorded) in zip(recording.steps, actions) {
            if Task.isCancelled { break }
            let at = step.at ?? Date()
            if skip.contains(step.seq) {
                branch.recordSkipped(recorded, state: state, at: at, cause: step.cause, site: step.site)
                continue
            }
            let action = edits[step.seq] ?? recorded
            let start = MonotonicNanos.now()
            _ = reducer(&state, action)
            branch.record(action, state: state, at: at, durationNs: MonotonicNanos.now() - start,
                          cause: step.cause, site: step.site)
            applied += 1
        }
        _ = await branch.finish()
        return BranchReport(sessionUUID: branch.session.uuid, actionsApplied: applied,
                            skipped: skip.sorted(), edited: edits.keys.sorted())
    }
}
