import RewindJSON
import RewindWire

/// One event as `rewind tail` sees it, from a live push or an `events` page.
struct TailEvent {
    var session: String
    var sessionID: Int64
    var actionType: String
    var event: WireEvent

    /// Reads a live `event` push.
    init?(push object: JSONObject) {
        guard case .event(let session, let sessionID, let actionType, let event)? = try? InspectorPush(json: .object(object)) else {
            return nil
        }
        self.init(session: session, sessionID: sessionID, actionType: actionType, event: event)
    }

    /// Reads one event of an `events` reply, which carries the session once for the page.
    init?(stored object: JSONObject, session: String, sessionID: Int64) {
        var push = object
        push["type"] = "event"
        push["id"] = nil
        push["session"] = .string(session)
        push["sessionId"] = .number(JSONNumber(sessionID))
        self.init(push: push)
    }

    init(session: String, sessionID: Int64, actionType: String, event: WireEvent) {
        self.session = session
        self.sessionID = sessionID
        self.actionType = actionType
        self.event = event
    }
}
