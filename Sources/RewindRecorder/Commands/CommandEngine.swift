import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// A command or a replay that cannot be carried out, in one sentence. Rewind's `Store` throws it
/// as its `ReplayError`.
package struct CommandRefusal: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// How every store performs the inspector's commands (jump, resume, pause, dispatch, replay,
/// branch) and runs replays and branches: one implementation, over a ``CommandTarget``.
@MainActor
package struct CommandEngine<Target: CommandTarget> {
    package typealias State = Target.State
    package typealias Action = Target.Action

    package let target: Target

    package init(_ target: Target) {
        self.target = target
    }

    // MARK: Commands

    /// Performs one command from the server and says how it went. A state or action that does
    /// not decode fails with the path that failed.
    package func perform(_ command: Command) async -> AppMessage.CommandResult {
        func done(_ ok: Bool, _ message: String? = nil) -> AppMessage.CommandResult {
            AppMessage.CommandResult(id: command.id, ok: ok, message: message)
        }
        let arguments = command.arguments
        do {
            switch command.kind {
            case .jump:
                guard let json = arguments["state"] else { return done(false, "jump: \"state\" is missing") }
                let state = try DecodeFailure.decode(State.self, from: json, as: .state)
                if let failure = target.show(state) { return done(false, failure) }
                return done(true)
            case .resume:
                let failure = target.showLive()
                target.commandRecorder?.resume()
                return failure.map { done(false, $0) } ?? done(true)
            case .pause:
                guard let recorder = target.commandRecorder else { return done(false, "the store is not recording") }
                recorder.pause()
                return done(true)
            case .dispatch:
                guard let json = arguments["action"] else { return done(false, "dispatch: \"action\" is missing") }
                guard !target.isReplaying else { return done(false, "a replay is running; dispatch after it ends") }
                let action = try DecodeFailure.decode(Action.self, from: json, as: .action(seq: nil))
                if let failure = target.dispatch(action) { return done(false, failure) }
                return done(true)
            case .replay:
                guard case .array(let actions)? = arguments["actions"] else {
                    return done(false, "replay: \"actions\" must be an array of actions")
                }
                let start: JSONValue
                if let given = arguments["state"] {
                    start = given
                } else {
                    guard let live = target.currentLiveState() else {
                        return done(false, "replay: \"state\" is missing and the store did not give its live state")
                    }
                    start = try JSONValueEncoder().encode(live)
                }
                let pace: ReplayPace
                if case .number(let perSecond)? = arguments["pace"], perSecond.doubleValue > 0 {
                    pace = .interval(.nanoseconds(Int64(1e9 / perSecond.doubleValue)))
                } else {
                    pace = .immediate
                }
                let recording = Recording(initialState: start, actions: actions,
                                          sessionUUID: target.commandRecorder?.session.uuid)
                let report = try await replay(recording, from: 0, to: nil, pace: pace)
                return done(true, "replayed \(report.actionsApplied) actions")
            case .branch:
                return try await performBranch(arguments, done: done)
            }
        } catch let failure as DecodeFailure {
            return done(false, failure.description)
        } catch let refusal as CommandRefusal {
            return done(false, refusal.description)
        } catch {
            return done(false, "\(error)")
        }
    }

    private func performBranch(_ arguments: JSONObject,
                               done: (Bool, String?) -> AppMessage.CommandResult) async throws -> AppMessage.CommandResult {
        guard let start = arguments["state"] else { return done(false, "branch: \"state\" is missing") }
        guard case .array(let items)? = arguments["steps"] else {
            return done(false, "branch: \"steps\" must be an array of {\"action\", \"at\", \"cause\", \"site\"}")
        }
        var steps: [Recording.Step] = []
        for (index, item) in items.enumerated() {
            guard let action = item["action"] else { return done(false, "branch: step \(index + 1) has no \"action\"") }
            let site: SendSite? = item["site"].flatMap { site in
                guard let file = site["file"]?.stringValue, let line = site["line"]?.numberValue?.int64Value,
                      let function = site["function"]?.stringValue else { return nil }
                return SendSite(file: file, line: Int(line), function: function)
            }
            steps.append(Recording.Step(seq: Int64(index + 1), action: action, patch: nil,
                                        cause: item["cause"]?.numberValue?.int64Value,
                                        at: item["at"]?.numberValue.map { Date(timeIntervalSince1970: $0.doubleValue) }, site: site))
        }
        var skip: Set<Int64> = []
        if case .array(let seqs)? = arguments["skip"] {
            for seq in seqs {
                guard let value = seq.numberValue?.int64Value else { return done(false, "branch: \"skip\" must list seqs") }
                skip.insert(value)
            }
        }
        var edits: [Int64: Action] = [:]
        if case .object(let given)? = arguments["edit"] {
            for (key, value) in given {
                guard let seq = Int64(key), String(seq) == key else {
                    return done(false, "branch: \"edit\" keys must be seqs written in plain decimal (\"1\", not \"01\" or \"+1\"); got \"\(key.prefix(32))\"")
                }
                edits[seq] = try DecodeFailure.decode(Action.self, from: value, as: .action(seq: seq))
            }
        }
        guard !skip.isEmpty || !edits.isEmpty else { return done(false, "branch: nothing to change: give \"skip\" or \"edit\"") }
        let recording = Recording(initialState: start, steps: steps, sessionUUID: arguments["of"]?.stringValue)
        let report = try await branch(recording, skip: skip, edits: edits)
        return done(true, "branched into session \(report.sessionUUID): \(report.actionsApplied) actions applied, "
                    + "\(report.skipped.count) left out, \(report.edited.count) edited")
    }

    // MARK: Replays

    /// Sets the state recorded at `from`, then sends the recorded actions `from + 1 … to` through
    /// the store's reducer at `pace`, without effects. Everything is decoded before the store is
    /// touched. When the store records, the replay is recorded as a new session linked to the
    /// replayed one (`replayOf`), and the live session resumes after it.
    package func replay(_ recording: Recording, from: Int64, to: Int64?, pace: ReplayPace) async throws -> ReplayReport {
        let to = to ?? recording.lastSeq
        guard from >= 0, from <= to, to <= recording.lastSeq else {
            throw CommandRefusal("the range \(from)…\(to) is outside the recording's seqs 0…\(recording.lastSeq)")
        }
        guard !target.isReplaying else { throw CommandRefusal("a replay is already running") }
        if let step = recording.steps.first(where: { $0.seq == from }), step.isSkipped {
            throw CommandRefusal("the state at seq \(from) was coalesced (not recorded): start from a recorded seq")
        }
        let start = try startState(of: recording, at: from)
        let steps = recording.steps.filter { $0.seq > from && $0.seq <= to }
        let actions = try steps.map { step throws(DecodeFailure) in
            try DecodeFailure.decode(Action.self, from: step.action, as: .action(seq: step.seq))
        }

        let live = target.commandRecorder
        let replayRecorder = live.map { live in
            Recorder<State, Action>(initialState: start, to: .sinks(live.sinks), metadata: live.metadata,
                                    options: live.options, replayOf: recording.sessionUUID)
        }
        live?.pause()
        if let failure = target.beginReplay(at: start) {
            live?.resume()
            replayRecorder?.stop()
            throw CommandRefusal(failure)
        }
        defer {
            replayRecorder?.stop()
            live?.markGap()
            live?.resume()
            // What effects (or the user) sent meanwhile was held; it applies to the state the
            // replay ended in, and is recorded in the live session.
            target.endReplay()
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
            let began = MonotonicNanos.now()
            guard let state = target.replayStep(action) else { throw CommandRefusal("the store went away during the replay") }
            replayRecorder?.record(action, state: state, at: Date(), durationNs: MonotonicNanos.now() - began,
                                   cause: cause, site: step.site)
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
            target.step(&state, action)
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

    // MARK: Branches

    /// Recomputes `recording` through the store's reducer with the actions at `skip` left out and
    /// those in `edits` replaced, without effects, into a new session recorded where the store
    /// records, linked to the original. The live store is not touched.
    package func branch(_ recording: Recording, skip: Set<Int64>, edits: [Int64: Action]) async throws -> BranchReport {
        guard let live = target.commandRecorder else {
            throw CommandRefusal("the store is not recording: a branch is recorded where the app records")
        }
        let last = recording.lastSeq
        for seq in skip.union(edits.keys) where seq < 1 || seq > last {
            throw CommandRefusal("seq \(seq) is not an action of the recording (1…\(last))")
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
                                             options: live.options, replayOf: recording.sessionUUID)
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
            target.step(&state, action)
            branch.record(action, state: state, at: at, durationNs: MonotonicNanos.now() - start,
                          cause: step.cause, site: step.site)
            applied += 1
        }
        _ = await branch.finish()
        return BranchReport(sessionUUID: branch.session.uuid, actionsApplied: applied,
                            skipped: skip.sorted(), edited: edits.keys.sorted())
    }
}
