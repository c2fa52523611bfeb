import Foundation
import RewindJSON
import RewindLog

/// Reads a session back from a log: its events and every state, rebuilt from the keyframe at
/// seq 0 by applying each event's patch.
struct LogStates {
    let session: SessionInfo
    let events: [LogEvent]
    let states: [JSONValue]

    init(path: String, session name: String = "latest") throws {
        let reader = try LogReader(path: path)
        session = try reader.session(named: name)
        events = try reader.events(session: session.id, includeKeyframes: true)
        var states: [JSONValue] = []
        var state = JSONValue.null
        for event in events {
            if event.seq == 0 {
                state = event.keyframe ?? .null
            } else {
                try state.apply(try JSONPatch(json: event.patch))
            }
            if let keyframe = event.keyframe { precondition(keyframe == state, "keyframe disagrees at \(event.seq)") }
            states.append(state)
        }
        self.states = states
    }

    /// The states encoded the way the recorder encodes them.
    static func json<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValueEncoder().encodeReportingNonFinite(value).value
    }
}

/// Waits (without sleeping blindly) until `condition` holds or the deadline passes.
@MainActor
func eventually(timeout: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        await Task.yield()
    }
    return true
}
