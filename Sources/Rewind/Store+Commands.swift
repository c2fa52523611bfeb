import Foundation
import RewindJSON
import RewindWire

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Performs one command from the server (an inspector's jump, resume, dispatch, replay or
    /// pause) and says how it went.
    ///
    /// - `jump`: `state` (the whole state, as the server sends it) is shown; the app's effects go
    ///   on changing the live state underneath.
    /// - `resume`: the live state returns and a paused recording records again.
    /// - `dispatch`: `action` is decoded as an `Action` and sent as the user would: a jump
    ///   resumes first. Refused while a replay runs.
    /// - `replay`: `actions` are sent through the reducer from `state` (the store's state when
    ///   absent) at `pace` actions per second (at once when absent), as ``replay(_:from:to:pace:)``.
    /// - `pause`: the recording stops recording until `resume`.
    /// - `branch`: `state` (seq 0, recorded at `at`) and `steps` (`[{"action", "at"?, "cause"?, "site"?}]`,
    ///   seqs 1…n) are recomputed with `skip` (seqs) left out and `edit` (`{"seq": action}`)
    ///   replaced, into a new session linked to `of` (``branch(_:skip:edits:startedAt:)``); the
    ///   live store is not touched.
    ///
    /// A state or action that does not decode fails with the path that failed.
    public func perform(_ command: Command) async -> AppMessage.CommandResult {
        func done(_ ok: Bool, _ message: String? = nil) -> AppMessage.CommandResult {
            AppMessage.CommandResult(id: command.id, ok: ok, message: message)
        }
        let arguments = command.arguments
        do {
            switch command.kind {
            case .jump:
                guard let state = arguments["state"] else { return done(false, "jump: \"state\" is missing") }
                try jump(to: state)
                return done(true)
            case .resume:
                resume()
                recorder?.resume()
                return done(true)
            case .pause:
                guard let recorder else { return done(false, "the store is not recording") }
                recorder.pause()
                return done(true)
            case .dispatch:
                guard let action = arguments["action"] else { return done(false, "dispatch: \"action\" is missing") }
                guard !isReplaying else { return done(false, "a replay is running; dispatch after it ends") }
                try send(json: action)
                return done(true)
            case .replay:
                guard case .array(let actions)? = arguments["actions"] else {
                    return done(false, "replay: \"actions\" must be an array of actions")
                }
                let start = try arguments["state"] ?? JSONValueEncoder().encode(state)
                let pace: ReplayPace
                if case .number(let perSecond)? = arguments["pace"], perSecond.doubleValue > 0 {
                    pace = .interval(.nanoseconds(Int64(1e9 / perSecond.doubleValue)))
                } else {
                    pace = .immediate
                }
                let recording = Recording(initialState: start, actions: actions, sessionUUID: recorder?.session.uuid)
                let report = try await replay(recording, pace: pace)
                return done(true, "replayed \(report.actionsApplied) actions")
            case .branch:
                return try await performBranch(arguments, done: done)
            }
        } catch let failure as DecodeFailure {
            return done(false, failure.description)
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
        do {
            let startedAt = arguments["at"]?.numberValue.map { Date(timeIntervalSince1970: $0.doubleValue) }
            let report = try await branch(recording, skip: skip, edits: edits, startedAt: startedAt)
            return done(true, "branched into session \(report.sessionUUID): \(report.actionsApplied) actions applied, "
                        + "\(report.skipped.count) left out, \(report.edited.count) edited")
        } catch let error as ReplayError {
            return done(false, error.description)
        }
    }

    /// Makes the store perform the commands of every ``ServerSink`` among `sinks`.
    @usableFromInline
    func acceptCommands(from sinks: [any RecordingSink]) {
        for case let sink as ServerSink in sinks {
            sink.onMainActorCommand { [weak self] command in
                guard let self else {
                    return AppMessage.CommandResult(id: command.id, ok: false, message: "the store is gone")
                }
                return await self.perform(command)
            }
        }
    }
}

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Starts recording, as the general ``Store/record(to:app:version:meta:redacting:redactingKeys:queueCapacity:)``,
    /// and performs the commands of every ``ServerSink`` it records to (``perform(_:)``).
    @inlinable @discardableResult
    public func record(to destination: RecordingDestination = .automatic, app: String, version: String? = nil,
                       meta: JSONValue = [:], redacting: [String] = [], redactingKeys: [String] = [],
                       queueCapacity: Int = 10_000) -> Recorder<State, Action> {
        let recorder = makeRecorder(to: destination, app: app, version: version, meta: meta,
                                    redacting: redacting, redactingKeys: redactingKeys, queueCapacity: queueCapacity)
        attach(recorder)
        return recorder
    }

    /// Records with `recorder`, as the general ``Store/attach(_:)``, and performs the commands of
    /// every ``ServerSink`` it records to.
    @inlinable
    public func attach(_ recorder: Recorder<State, Action>) {
        install(recorder, tap: StoreTap { action, state, at, duration, cause, site in
            recorder.record(action, state: state, at: at, durationNs: duration, cause: cause, site: site)
        })
        acceptCommands(from: recorder.sinks)
    }
}
