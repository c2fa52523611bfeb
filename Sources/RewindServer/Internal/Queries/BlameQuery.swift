import RewindJSON
import RewindLog
import RewindReplay
import RewindWire

/// `blame`: every event that changed the value at a path (a scan).
struct BlameQuery: SessionQuery {
    var id: JSONValue?
    var session: String
    var path: JSONPointer

    var askInstead: String { "ask about a narrower \"path\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let entries = try context.replay(session, id: id, scan: true) { timeline throws(ReplayError) in try timeline.blame(path: path) }
        return InspectorReplies.reply("blame", id: id, session: session, ["path": .string(path.description),
                                                                          "entries": .array(entries.map(InspectorReplies.blame))])
    }
}
