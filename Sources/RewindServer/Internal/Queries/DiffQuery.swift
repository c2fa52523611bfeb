import RewindJSON
import RewindLog
import RewindReplay
import RewindWire

/// `diff`: the patch from one seq's state to another's, and its inverse.
struct DiffQuery: SessionQuery {
    var id: JSONValue?
    var session: String
    var from: Int64
    var to: Int64

    var askInstead: String { "ask for a shorter range, or compare parts with \"state\" and \"path\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let diff = try context.replay(session, id: id) { timeline throws(ReplayError) in try timeline.diff(from: from, to: to) }
        return InspectorReplies.reply("diff", id: id, session: session, ["from": InspectorReplies.number(from), "to": InspectorReplies.number(to),
                                                                         "patch": diff.forward.json, "inverse": diff.inverse.json])
    }
}
