import Foundation
import RewindJSON
import RewindLog

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
    /// - Throws: ``DecodeError`` for a state or action that does not decode; ``StoreReplayError``
    ///   when the store is not recording or a seq is outside the recording.
    @discardableResult
    public func branch(_ recording: Recording, skip: Set<Int64> = [], edits: [Int64: Action] = [:],
                       startedAt: Date? = nil) async throws -> BranchReport {
        do {
            return try await CommandEngine(StoreCommandTarget(self)).branch(recording, skip: skip, edits: edits, startedAt: startedAt)
        } catch let refusal as CommandRefusal {
            throw StoreReplayError(refusal.description)
        }
    }
}
