import RewindJSON

/// What the server pushes to inspectors without being asked.
///
/// ```json
/// {"type":"event","session":"6F0C…","sessionId":3,"actionType":"add","seq":7,"at":…,"action":{…},"patch":[…],"hash":"…","durationNs":5400}
/// {"type":"session","change":"started","session":{…}}
/// {"type":"lagged","session":"6F0C…","message":"…"}
/// ```
public enum InspectorPush: Sendable, Equatable {
    /// A live event of a subscribed session (seq 0 carries `keyframe`, the others `patch`).
    case event(session: String, sessionID: Int64, actionType: String, event: WireEvent)
    /// A session started, resumed (its app reconnected) or ended.
    case session(change: SessionChange, session: WireSession)
    /// The inspector did not read fast enough and live events were dropped for it; it should
    /// fetch what it missed with `events` and carry on.
    case lagged(session: String?, message: String)

    public enum SessionChange: String, Sendable, CaseIterable {
        case started, resumed, ended
    }

    public var json: JSONValue {
        switch self {
        case .event(let session, let sessionID, let actionType, let event):
            guard case .object(var o) = event.json else { return event.json }
            o["session"] = .string(session)
            o["sessionId"] = .number(JSONNumber(sessionID))
            o["actionType"] = .string(actionType)
            return .object(o)
        case .session(let change, let session):
            return ["type": "session", "change": .string(change.rawValue), "session": session.json]
        case .lagged(let session, let message):
            var o: JSONObject = ["type": "lagged", "message": .string(message)]
            if let session { o["session"] = .string(session) }
            return .object(o)
        }
    }

    /// Reads a pushed message; `nil` for a reply or an error (those carry a request's `id`).
    public init?(json: JSONValue) throws(WireError) {
        let f = try WireFields(json)
        switch f.type {
        case "event" where f.id == nil:
            self = .event(session: try f.string("session"), sessionID: try f.optionalInt("sessionId") ?? -1,
                          actionType: try f.optionalString("actionType") ?? "?", event: try WireEvent(fields: f))
        case "session" where f.id == nil:
            guard let change = SessionChange(rawValue: try f.string("change")) else { throw f.fail("change", "started, resumed or ended") }
            self = .session(change: change, session: try WireSession(json: try f.value("session")))
        case "lagged":
            self = .lagged(session: try f.optionalString("session"), message: try f.optionalString("message") ?? "")
        default:
            return nil
        }
    }
}
