import RewindJSON
import RewindLog
import RewindWire

/// `compare`: the first seq where two sessions' states differ (a scan) and, with `seq`, the
/// patch between their states there.
struct CompareQuery: SessionQuery {
    var id: JSONValue?
    var session: String
    var other: String
    var seq: Int64?

    var askInstead: String { "compare parts of the states with \"state\" and \"path\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let other = try context.resolve(self.other, id: id)
        let first = try context.read(id, scan: true) { reader throws(LogError) in try reader.firstDifference(between: session.id, and: other.id) }
        var members: JSONObject = ["session": .string(session.uuid), "with": .string(other.uuid),
                                   "firstDifference": first.map(InspectorReplies.number) ?? .null]
        if let seq {
            let a = try context.state(at: seq, of: session, id: id)
            let b = try context.state(at: seq, of: other, id: id)
            let diff = JSONDiff(from: a, to: b)
            members["seq"] = InspectorReplies.number(seq)
            members["patch"] = diff.forward.json
            members["inverse"] = diff.inverse.json
        }
        return InspectorReplies.reply("compare", id: id, members)
    }
}
