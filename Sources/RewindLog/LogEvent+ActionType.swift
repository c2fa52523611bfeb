import RewindJSON

extension LogEvent {
    /// The type name of an action, as stored in `events.action_type` and matched by type globs.
    ///
    /// - `{"type": "todo/add", …}` (Redux style): the `type` string.
    /// - `{"login": {…}}` (Swift's synthesized `Codable` for an enum case with associated
    ///   values): the single key, the case name.
    /// - `"increment"` (a case without associated values): the string.
    /// - anything else: `?`.
    ///
    /// ```swift
    /// LogEvent.actionType(of: ["type": "todo/add"])   // "todo/add"
    /// LogEvent.actionType(of: ["login": ["user": "ada"]])  // "login"
    /// ```
    public static func actionType(of action: JSONValue) -> String {
        switch action {
        case .string(let name) where !name.isEmpty:
            return name
        case .object(let object):
            if let type = object["type"]?.stringValue, !type.isEmpty { return type }
            if object.count == 1, let key = object.keys.first, !key.isEmpty, object["type"] == nil { return key }
            return "?"
        default:
            return "?"
        }
    }
}
