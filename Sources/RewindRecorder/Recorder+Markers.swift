import Foundation
import RewindJSON

extension Recorder {
    /// The action type of the event a replay into a live app leaves in its session: the state
    /// the replay ended in, set without the reducer (`{"type": "@@rewind/replayed", "session":
    /// the replay's session, "of": the replayed session, "from", "to", "actions"}`).
    package static var replayedType: String { "@@rewind/replayed" }

    /// Records an event that is no action of the app's (a replay setting the state): its action
    /// is `marker` as given, its patch what changed since the last recorded state. Returns its
    /// seq, or `nil` when nothing is recorded (paused or stopped).
    @discardableResult
    package func recordMarker(_ marker: JSONValue, state: State, at date: Date = Date()) -> Int64? {
        queue.pushMarker(marker, state: state, at: date)
    }
}

extension Recording.Step {
    /// A replay set the state here, without the reducer (``Recorder/replayedType``).
    package var isReplayedMark: Bool { action["type"]?.stringValue == Recorder<Int, Int>.replayedType }

    /// A branch left the action out here (``Recorder/skippedType``): the state did not change.
    package var isLeftOut: Bool { action["type"]?.stringValue == Recorder<Int, Int>.skippedType }

    /// The app crashed here (`@@rewind/crashed`, the last event of a crashed session): no action
    /// of the app's; the state did not change.
    package var isCrashedMark: Bool { action["type"]?.stringValue == CrashRecord.crashedType }
}
