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
        // The same logic performs them for a store that is not Rewind's (`StoreLink`).
        await CommandEngine(StoreCommandTarget(self)).perform(command)
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
