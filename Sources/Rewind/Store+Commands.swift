import Foundation
import RewindJSON
import RewindWire

/// Whether a recording performs the commands its server sinks relay from inspectors (jump,
/// resume, pause, dispatch, replay, branch), said at the call site:
///
/// ```swift
/// store.record(to: .server(url), app: "Shop", commands: .accepted)
/// ```
///
/// ``accepted`` needs `State: Codable & Sendable` and `Action: Decodable & Sendable`, since
/// states and actions arrive as JSON; ``ignored`` (the default) suits any store, and a server
/// sink then answers each command that this app does not take commands.
public struct InspectorCommands<State, Action>: Sendable {
    /// Makes the store perform the commands of the server sinks among the sinks given; `nil`
    /// when the recording takes none.
    @usableFromInline let accept: (@MainActor @Sendable (Store<State, Action>, [any RecordingSink]) -> Void)?

    /// The recording takes no commands.
    public static var ignored: InspectorCommands { InspectorCommands(accept: nil) }
}

extension InspectorCommands where State: Codable & Sendable, Action: Decodable & Sendable {
    /// The store performs the inspector's commands, on the main actor (``Store/record(to:app:version:meta:redacting:redactingKeys:queueCapacity:commands:)``).
    public static var accepted: InspectorCommands {
        InspectorCommands(accept: { store, sinks in store.acceptCommands(from: sinks) })
    }
}

extension InspectorCommands {
    // The one left for a store whose types cannot take commands, so the error names what is
    // missing (the constrained `accepted` above is the more specialised and wins otherwise).
    @available(*, unavailable, message: "the inspector's commands need State: Codable & Sendable and Action: Decodable & Sendable (states and actions arrive as JSON); make them Codable & Sendable")
    public static var accepted: InspectorCommands { fatalError("unavailable") }
}

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Performs one command from the server (an inspector's jump, resume, dispatch, replay,
    /// pause or branch) and says how it went, as the wire answers it. A recording with
    /// `commands: .accepted` calls it for each command its server sinks relay.
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
    /// A member that is missing or mistyped, or a state or action that does not decode, fails
    /// with one sentence naming it.
    package func perform(_ command: Command) async -> AppMessage.CommandResult {
        // The same logic performs them for a store that is not Rewind's (`StoreLink`).
        await CommandEngine(StoreCommandTarget(self)).perform(command)
    }

    /// Makes the store perform the commands of every ``ServerSink`` among `sinks`.
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
