import Foundation
import RewindJSON
import RewindLog
import RewindWire
import RewindSupport

/// A command or a replay that cannot be carried out, in one sentence. Rewind's `Store` throws it
/// as its `StoreReplayError`.
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

    /// Performs one command from the server and says how it went. A member that is missing or
    /// mistyped, or a state or action that does not decode, fails with one sentence naming it.
    package func perform(_ command: Command) async -> AppMessage.CommandResult {
        func done(_ ok: Bool, _ message: String? = nil) -> AppMessage.CommandResult {
            AppMessage.CommandResult(id: command.id, ok: ok, message: message)
        }
        do {
            switch command.kind {
            case .jump:
                guard let json = try command.decode(JumpArguments.self).state else { return done(false, "jump: \"state\" is missing") }
                let state = try DecodeError.decode(State.self, from: json, as: .state)
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
                let json = try command.decode(DispatchArguments.self).action
                guard !target.isReplaying else { return done(false, "a replay is running; dispatch after it ends") }
                let action = try DecodeError.decode(Action.self, from: json, as: .action(seq: nil))
                if let failure = target.dispatch(action) { return done(false, failure) }
                return done(true)
            case .replay:
                let replay = try command.decode(ReplayArguments.self)
                let start: JSONValue
                if let given = replay.state {
                    start = given
                } else {
                    guard let live = target.currentLiveState() else {
                        return done(false, "replay: \"state\" is missing and the store did not give its live state")
                    }
                    start = try JSONValueEncoder().encode(live)
                }
                let pace: ReplayPace
                if let perSecond = replay.pace, perSecond > 0 {
                    pace = .interval(.nanoseconds(Int64(1e9 / perSecond)))
                } else {
                    pace = .immediate
                }
                // The replayed session (`of`, else the live one) and the seq of its first action
                // sent (`from`), for the replay's session and the mark it leaves in the live one.
                // Each action with where the app sent it in the replayed session, when given.
                let steps = replay.actions.enumerated().map { index, action in
                    let site = replay.sites.flatMap { index < $0.count ? $0[index] : nil }
                    return Recording.Step(seq: Int64(index + 1), action: action,
                                          site: site.map { SendSite(file: $0.file, line: $0.line, function: $0.function) })
                }
                let recording = Recording(initialState: start, steps: steps,
                                          sessionUUID: replay.of ?? target.commandRecorder?.session.uuid)
                let report = try await self.replay(recording, from: 0, to: nil, pace: pace, firstSeq: max(1, replay.from ?? 1))
                return done(true, "replayed \(report.actionsApplied) actions")
            case .branch:
                return done(true, try await performBranch(command.decode(BranchArguments.self)))
            }
        } catch let failure as WireError {
            return done(false, failure.message)
        } catch let failure as DecodeError {
            return done(false, failure.description)
        } catch let refusal as CommandRefusal {
            return done(false, refusal.description)
        } catch {
            return done(false, "\(error)")
        }
    }

    /// Recomputes the recording a branch command carries; returns the sentence that says what the
    /// branch did.
    private func performBranch(_ arguments: BranchArguments) async throws -> String {
        let (start, given) = try arguments.recording()
        var steps: [Recording.Step] = []
        var states: [Int64: JSONValue] = [:]
        steps.reserveCapacity(given.count)
        for (index, step) in given.enumerated() {
            let seq = Int64(index + 1)
            if let state = step.state { states[seq] = state }
            steps.append(Recording.Step(seq: seq, action: step.action, patch: nil, cause: step.cause,
                                        at: step.at.map { Date(timeIntervalSince1970: $0) },
                                        site: step.site.map { SendSite(file: $0.file, line: $0.line, function: $0.function) }))
        }
        var edits: [Int64: Action] = [:]
        for edit in arguments.edit {
            edits[edit.seq] = try DecodeError.decode(Action.self, from: edit.action, as: .action(seq: edit.seq))
        }
        let recording = Recording(initialState: start, steps: steps, sessionUUID: arguments.of)
        // Seq 0's time is the original's (`at`), so the branch's offsets read as the original's.
        let startedAt = arguments.at.map { Date(timeIntervalSince1970: $0) }
        let report = try await branch(recording, skip: Set(arguments.skip), edits: edits, states: states, startedAt: startedAt)
        return "branched into session \(report.sessionUUID): \(report.actionsApplied) actions applied, "
            + "\(report.skipped.count) left out, \(report.edited.count) edited"
    }

    // MARK: Replays

    /// One step of a replay or a branch, decoded before the store is touched.
    private enum Item {
        /// An action of the app's, through the reducer.
        case action(Action)
        /// A replay set the state here (``Recorder/replayedType``): the state it set.
        case set(State)
        /// A branch left an action out here (``Recorder/skippedType``): nothing changes.
        case leftOut
    }

    /// Decodes `step`: its action, or, for a mark a replay left, the state it set (given in the
    /// mark's `state` by `rewind replay --into` and the server's branch, else `recorded`).
    private func item(_ step: Recording.Step, recorded: () throws -> JSONValue?) throws -> Item {
        if step.isLeftOut { return .leftOut }
        if step.isReplayedMark {
            guard let json = try step.action["state"] ?? recorded() else {
                throw CommandRefusal("seq \(step.seq) is where a replay set the state, and the state it set was not given: "
                                     + "replay or branch from seq \(step.seq) instead")
            }
            return .set(try DecodeError.decode(State.self, from: json, as: .state))
        }
        return .action(try DecodeError.decode(Action.self, from: step.action, as: .action(seq: step.seq)))
    }

    /// The mark as it goes into another session: without the state it carried on the wire.
    private func mark(_ step: Recording.Step) -> JSONValue {
        guard case .object(var object) = step.action else { return step.action }
        object["state"] = nil
        return .object(object)
    }

    /// Sets the state recorded at `from`, then sends the recorded actions `from + 1 … to` through
    /// the store's reducer at `pace`, without effects. Everything is decoded before the store is
    /// touched. When the store records, the replay is recorded as a new session linked to the
    /// replayed one (`replayOf`), and the live session, once it resumes, records what the replay
    /// did to the live state as one event (``Recorder/replayedType``), so that what follows in it
    /// is recorded from the state the replay ended in.
    ///
    /// `firstSeq` is the seq in the replayed session of the recording's seq 1, when the recording
    /// is a range of it (a replay command's actions): the mark names the replayed seqs.
    package func replay(_ recording: Recording, from: Int64, to: Int64?, pace: ReplayPace,
                        firstSeq: Int64 = 1) async throws -> ReplayReport {
        let to = to ?? recording.lastSeq
        guard from >= 0, from <= to, to <= recording.lastSeq else {
            throw CommandRefusal("the range \(from)…\(to) is outside the recording's seqs 0…\(recording.lastSeq)")
        }
        guard !target.isReplaying else { throw CommandRefusal("a replay is already running") }
        if let refusal = target.stepRefusal { throw CommandRefusal(refusal) }
        if let step = recording.steps.first(where: { $0.seq == from }), step.isSkipped {
            throw CommandRefusal("the state at seq \(from) was coalesced (not recorded): start from a recorded seq")
        }
        let start = try startState(of: recording, at: from)
        let steps = recording.steps.filter { $0.seq > from && $0.seq <= to }
        let items = try steps.map { step in try item(step) { try recording.state(at: step.seq) } }

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
        var state = start
        var applied = 0
        var lastSeq = from
        defer {
            replayRecorder?.stop()
            live?.resume()
            // The live state is where the replay left it: one event says so, its patch from the
            // last recorded live state, so blame, find and the next event's patch stay right. It
            // names the replayed session's first and last action replayed (`from`, `to`).
            var mark: JSONObject = ["type": .string(Recorder<State, Action>.replayedType),
                                    "session": replayRecorder.map { .string($0.session.uuid) } ?? .null,
                                    "of": recording.sessionUUID.map(JSONValue.string) ?? .null,
                                    "from": .number(JSONNumber(from + firstSeq)),
                                    "to": .number(JSONNumber(lastSeq + firstSeq - 1)),
                                    "actions": .number(JSONNumber(Int64(applied)))]
            if recording.sessionUUID == nil { mark["of"] = nil }
            live?.recordMarker(.object(mark), state: state)
            // What effects (or the user) sent meanwhile was held; it applies to the state the
            // replay ended in, and is recorded in the live session after the mark.
            target.endReplay()
        }
        var previousAt = steps.first?.at
        for (step, item) in zip(steps, items) {
            if Task.isCancelled { break }
            try await wait(pace, from: previousAt, to: step.at, first: applied == 0 && lastSeq == from)
            previousAt = step.at
            switch item {
            case .action(let action):
                // The recorded cause is a seq of the replayed session; it is the same distance
                // from `from` in the replay's.
                let cause = step.cause.flatMap { $0 > from ? $0 - from : nil }
                let began = MonotonicClock.nanoseconds()
                guard let next = target.replayStep(action) else { throw CommandRefusal("the store went away during the replay") }
                replayRecorder?.record(action, state: next, at: Date(), durationNs: MonotonicClock.nanoseconds() - began,
                                       cause: cause, site: step.site)
                state = next
                applied += 1
            case .set(let set):
                guard let next = target.replaySet(set) else { throw CommandRefusal("the store went away during the replay") }
                replayRecorder?.recordMarker(mark(step), state: next)
                state = next
            case .leftOut:
                replayRecorder?.recordMarker(step.action, state: state)
            }
            lastSeq = step.seq
        }
        return ReplayReport(sessionUUID: replayRecorder?.session.uuid, actionsApplied: applied)
    }

    /// The state at `from`, decoded: from the patches, or from the reducer for a recording of
    /// actions alone.
    private func startState(of recording: Recording, at from: Int64) throws -> State {
        if let json = try recording.state(at: from) {
            return try DecodeError.decode(State.self, from: json, as: .state)
        }
        var state = try DecodeError.decode(State.self, from: recording.initialState, as: .state)
        for step in recording.steps where step.seq <= from {
            switch try item(step, recorded: { nil }) {
            case .action(let action): target.step(&state, action)
            case .set(let set): state = set
            case .leftOut: break
            }
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
    /// records, linked to the original. The live store is not touched. Where a replay set the
    /// state (``Recorder/replayedType``) the branch sets the same state (`states` gives it, by
    /// seq, when the recording holds no patches).
    package func branch(_ recording: Recording, skip: Set<Int64>, edits: [Int64: Action],
                        states: [Int64: JSONValue] = [:], startedAt: Date? = nil) async throws -> BranchReport {
        guard let live = target.commandRecorder else {
            throw CommandRefusal("the store is not recording: a branch is recorded where the app records")
        }
        if let refusal = target.stepRefusal { throw CommandRefusal(refusal) }
        let last = recording.lastSeq
        for seq in skip.union(edits.keys) where seq < 1 || seq > last {
            throw CommandRefusal("seq \(seq) is not an action of the recording (1…\(last))")
        }
        for step in recording.steps where (step.isReplayedMark || step.isLeftOut) && (skip.contains(step.seq) || edits[step.seq] != nil) {
            throw CommandRefusal("seq \(step.seq) is not an action of the app's but \(step.action["type"]?.stringValue ?? "a mark"): leave out or edit an action")
        }
        var state = try DecodeError.decode(State.self, from: recording.initialState, as: .state)
        let items = try recording.steps.map { step in
            try item(step) { try states[step.seq] ?? recording.state(at: step.seq) }
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
        for (step, item) in zip(recording.steps, items) {
            if Task.isCancelled { break }
            let at = step.at ?? Date()
            switch item {
            case .set(let set):
                state = set
                branch.recordMarker(mark(step), state: state, at: at)
                continue
            case .leftOut:
                branch.recordMarker(step.action, state: state, at: at)
                continue
            case .action(let recorded):
                if skip.contains(step.seq) {
                    branch.recordSkipped(recorded, state: state, at: at, cause: step.cause, site: step.site)
                    continue
                }
                let action = edits[step.seq] ?? recorded
                let start = MonotonicClock.nanoseconds()
                target.step(&state, action)
                branch.record(action, state: state, at: at, durationNs: MonotonicClock.nanoseconds() - start,
                              cause: step.cause, site: step.site)
                applied += 1
            }
        }
        _ = await branch.finish()
        return BranchReport(sessionUUID: branch.session.uuid, actionsApplied: applied,
                            skipped: skip.sorted(), edited: edits.keys.sorted())
    }
}
