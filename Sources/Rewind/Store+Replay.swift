import Foundation
import RewindJSON

extension Store where State: Codable & Sendable, Action: Decodable & Sendable {
    /// Sets the state recorded at `from`, then sends the recorded actions `from + 1 … to` through
    /// the real reducer at `pace`.
    ///
    /// Every state and action is decoded before the store is touched: one that does not decode
    /// throws a ``DecodeError`` naming its path and leaves the store as it was. Effects are not
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
        do {
            return try await CommandEngine(StoreCommandTarget(self)).replay(recording, from: from, to: to, pace: pace)
        } catch let refusal as CommandRefusal {
            throw StoreReplayError(refusal.description)
        }
    }
}

/// What ``CommandEngine`` drives for a ``Store`` (a conformance of the store itself could not
/// depend on its types being `Sendable`).
@MainActor
final class StoreCommandTarget<State: Codable & Sendable, Action: Decodable & Sendable>: CommandTarget {
    let store: Store<State, Action>
    /// The reducer, for ``step(_:_:)`` off the main actor.
    nonisolated let reducer: Reducer<State, Action>

    init(_ store: Store<State, Action>) {
        self.store = store
        self.reducer = store.reducer
    }

    var commandRecorder: Recorder<State, Action>? { store.recorder }

    var isReplaying: Bool { store.isReplaying }

    func currentLiveState() -> State? { store.live }

    func show(_ state: State) -> String? {
        store.jump(to: state)
        return nil
    }

    func showLive() -> String? {
        store.resume()
        return nil
    }

    func dispatch(_ action: Action) -> String? {
        // Recorded as sent from the inspector, not from this file.
        store.send(action, fileID: SendSite.inspector.file, line: SendSite.inspector.line, function: SendSite.inspector.function)
        return nil
    }

    func beginReplay(at state: State) -> String? {
        store.tapBeforeReplay = store.tap
        store.tap = nil
        store.isReplaying = true
        store.setJumped(nil)
        store.setLive(state)
        return nil
    }

    func replayStep(_ action: Action) -> State? {
        store.reduce(action, cause: nil)
        return store.live
    }

    func replaySet(_ state: State) -> State? {
        store.setLive(state)
        return state
    }

    func endReplay() {
        store.isReplaying = false
        store.tap = store.tapBeforeReplay
        store.tapBeforeReplay = nil
        store.applyWaitingForReplay()
    }

    nonisolated func step(_ state: inout State, _ action: Action) {
        _ = reducer(&state, action)
    }

    /// Rewind's store always has its reducer.
    nonisolated var stepRefusal: String? { nil }
}
