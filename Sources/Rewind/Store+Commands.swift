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
            }
        } catch let failure as DecodeFailure {
            return done(false, failure.description)
        } catch {
            return done(false, "\(error)")
        }
    }

    /// Makes the store perform the commands of every ``ServerSink`` among `sinks`.
    @usableFromInline
    func acceptCommands(from sinks: [any RecordingSink]) {
        for case let sink as ServerSink in sinks {
            sink.onCommand { [weak self] command in
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
