import Foundation
import RewindJSON

/// What a replay did.
public struct ReplayReport: Sendable, Equatable {
    /// The uuid of the session that recorded the replay, when the store was recording.
    public var sessionUUID: String?
    /// How many actions went through the reducer.
    public var actionsApplied: Int
}

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Sets the state recorded at `from`, then sends the recorded actions `from + 1 … to` through
    /// the real reducer at `pace`.
    ///
    /// Every state and action is decoded before the store is touched: one that does not decode
    /// throws a ``DecodeFailure`` naming its path and leaves the store as it was. Effects are not
    /// run (the actions they sent are in the recording). While the replay runs, actions sent to
    /// the store (an effect's answer, a tap) wait, and are applied in order after it. When the store is recording, the replay is recorded as a new
    /// session linked to the replayed one (`replayOf`), and the live session resumes after it.
    ///
    /// ```swift
    /// let recording = try Recording.load(fromLog: path)
    /// let report = try await store.replay(recording, from: 0, to: 25, pace: .interval(.milliseconds(50)))
    /// ```
    @discardableResult
    public func replay(_ recording: Recording, from: Int64 = 0, to: Int64? = nil,
                       pace: ReplayPace = .immediate) async throws -> ReplayReport {
        let to = to ?? recording.lastSeq
        guard from >= 0, from <= to, to <= recording.lastSeq else {
            throw ReplayError("the range \(from)…\(to) is outside the recording's seqs 0…\(recording.lastSeq)")
        }
        guard !isReplaying else { throw ReplayError("a replay is already running") }
        if let step = recording.steps.first(where: { $0.seq == from }), step.isSkipped {
            throw ReplayError("the state at seq \(from) was coalesced (not recorded): start from a recorded seq")
        }
        let start = try startState(of: recording, at: from)
        let steps = recording.steps.filter { $0.seq > from && $0.seq <= to }
        let actions = try steps.map { step throws(DecodeFailure) in
            try DecodeFailure.decode(Action.self, from: step.action, as: .action(seq: step.seq))
        }

        let live = recorder
        let replayRecorder = live.map { live in
            Recorder<State, Action>(initialState: start, to: .sinks(live.sinks), metadata: live.metadata,
                                    options: live.options, replayOf: recording.sessionUUID)
        }
        live?.pause()
        let savedTap = tap
        tap = replayRecorder.map { recorder in
            StoreTap { action, state, at, duration, cause, site in
                recorder.record(action, state: state, at: at, durationNs: duration, cause: cause, site: site)
            }
        }
        isReplaying = true
        setJumped(nil)
        setLive(start)
        defer {
            isReplaying = false
            tap = savedTap
            replayRecorder?.stop()
            live?.markGap()
            live?.resume()
            // What effects (or the user) sent meanwhile was kept; it applies to the state the
            // replay ended in, and is recorded in the live session.
            applyWaitingForReplay()
        }
        var applied = 0
        var previousAt = steps.first?.at
        for (step, action) in zip(steps, actions) {
            if Task.isCancelled { break }
            try await wait(pace, from: previousAt, to: step.at, first: applied == 0)
            previousAt = step.at
            // The recorded cause is a seq of the replayed session; it is the same distance from
            // `from` in the replay's.
            let cause = step.cause.flatMap { $0 > from ? $0 - from : nil }
            reduce(action, cause: cause, site: step.site)
            applied += 1
        }
        return ReplayReport(sessionUUID: replayRecorder?.session.uuid, actionsApplied: applied)
    }

    /// The state at `from`, decoded: from the patches, or from the reducer for a recording of
    /// actions alone.
    private func startState(of recording: Recording, at from: Int64) throws -> State {
        if let json = try recording.state(at: from) {
            return try DecodeFailure.decode(State.self, from: json, as: .state)
        }
        var state = try DecodeFailure.decode(State.self, from: recording.initialState, as: .state)
        for step in recording.steps where step.seq <= from {
            let action = try DecodeFailure.decode(Action.self, from: step.action, as: .action(seq: step.seq))
            _ = reducer(&state, action)
        }
        return state
    }

    private func wait(_ pace: ReplayPace, from previous: Date?, to next: Date?, first: Bool) async throws {
        guard !first else { return }
        switch pace {
        case .immediate:
            return
        case .interval(let duration):
            try await Task.sleep(for: duration)
        case .recorded(let speed):
            guard let previous, let next, speed > 0 else { return }
            let seconds = max(0, next.timeIntervalSince(previous)) / speed
            try await Task.sleep(for: .seconds(seconds))
        }
    }
}
