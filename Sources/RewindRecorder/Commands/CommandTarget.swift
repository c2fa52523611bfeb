/// What a store does for the inspector's commands, whatever the store: Rewind's `Store` and a
/// ``StoreLink`` (TCA, ReSwift, a store of the app's own) both conform, and ``CommandEngine``
/// holds the logic they share (decoding, replays, branches, what is recorded where).
///
/// Every requirement but ``step(_:_:)`` runs on the main actor, where the store's state lives.
/// A requirement that can fail returns the sentence that says why (`nil` when it worked).
@MainActor
package protocol CommandTarget<State, Action>: AnyObject {
    associatedtype State: Codable & Sendable
    associatedtype Action: Decodable & Sendable

    /// The recorder of the live session, when the store records.
    var commandRecorder: Recorder<State, Action>? { get }
    /// `true` while a replay holds the store.
    var isReplaying: Bool { get }
    /// The live state (whatever a jump shows), or `nil` when the store cannot give it.
    func currentLiveState() -> State?
    /// Shows `state`; the app's work goes on changing the live state underneath (a jump).
    func show(_ state: State) -> String?
    /// Shows the live state again (a resume).
    func showLive() -> String?
    /// Sends `action` as the user would: a jump resumes first.
    func dispatch(_ action: Action) -> String?
    /// Makes `state` the live state for a replay, and holds what is sent meanwhile.
    func beginReplay(at state: State) -> String?
    /// Reduces one replayed action on the live state, without effects and without recording it;
    /// returns the state it produced (`nil` when the store is gone).
    func replayStep(_ action: Action) -> State?
    /// Sets the live state during a replay, where the replayed session holds a replay's mark
    /// (the state it set); returns it (`nil` when the store is gone).
    func replaySet(_ state: State) -> State?
    /// Ends the replay: what was held is applied, in order, to the state the replay ended in.
    func endReplay()
    /// The reducer without effects, off the store (branches, and replays of actions alone).
    nonisolated func step(_ state: inout State, _ action: Action)
    /// Why the store has no ``step(_:_:)`` (`nil` when it has one): replays and branches are
    /// refused with it before anything is touched.
    nonisolated var stepRefusal: String? { get }
}
