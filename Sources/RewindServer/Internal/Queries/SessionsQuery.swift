import RewindJSON
import RewindLog
import RewindWire

/// `sessions`: every stored session, each marked live when an app streams it now.
struct SessionsQuery: InspectorQuery {
    var id: JSONValue?

    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        let live = context.ingest.liveSessionIDs()
        let sessions = try context.read(id) { reader throws(LogError) in try reader.sessions() }
        return InspectorReplies.reply("sessions", id: id, ["sessions": .array(sessions.map { wireSession($0, live: live.contains($0.id)).json })])
    }
}
