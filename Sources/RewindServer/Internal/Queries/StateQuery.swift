import RewindJSON
import RewindLog
import RewindWire

/// `state`: the state at a seq, whole or at a path, with its hash.
struct StateQuery: SessionQuery {
    var id: JSONValue?
    var session: String
    var seq: Int64
    var path: JSONPointer?

    var askInstead: String { "ask for part of the state with \"path\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let state = try context.state(at: seq, of: session, id: id)
        var members: JSONObject = ["seq": InspectorReplies.number(seq), "hash": .string(wireHash(state.hash(session.hashVersion)))]
        if let path {
            let value = path.resolve(in: state)
            members["path"] = .string(path.description)
            members["exists"] = .bool(value != nil)
            members["value"] = value ?? .null
        } else {
            members["exists"] = true
            members["value"] = state
        }
        return InspectorReplies.reply("state", id: id, session: session, members)
    }
}
