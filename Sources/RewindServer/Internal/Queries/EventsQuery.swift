import RewindJSON
import RewindLog
import RewindWire

/// `events`: a page of a session's stored events, cut to fit the connection.
struct EventsQuery: SessionQuery {
    var id: JSONValue?
    var session: String
    var from: Int64
    var limit: Int
    var typeGlob: String?
    var text: String?

    var askInstead: String { "ask for a smaller \"limit\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let (events, initial) = try context.read(id) { reader throws(LogError) in
            let events = try reader.events(session: session.id, from: from, typeGlob: typeGlob, text: text, limit: limit)
            let initial = events.first?.seq == 0 ? try reader.keyframe(atOrBefore: 0, session: session.id)?.state : nil
            return (events, initial)
        }
        // Cut the page to fit the connection's output bound, with room for escapes: `next`
        // then points at the first event left out.
        let maxReplyBytes = context.limits.maxReplyBytes
        let budget = maxReplyBytes / 2
        var list: [JSONValue] = []
        var used = 0
        for event in events {
            let item = InspectorReplies.event(event, keyframe: event.seq == 0 ? initial : nil)
            used += item.measure(byteBudget: budget - used + 1).bytes
            if used > budget {
                guard !list.isEmpty else {
                    throw WireError(.replyTooLarge, "event \(event.seq) alone is larger than this connection's reply limit of \(maxReplyBytes / 2) bytes for a page; ask for the state after it with \"state\" and a \"path\"", id: id)
                }
                break
            }
            list.append(item)
        }
        let next: JSONValue = list.count < events.count ? InspectorReplies.number(events[list.count].seq)
            : events.count == limit ? InspectorReplies.number(events[events.count - 1].seq + 1) : .null
        return InspectorReplies.reply("events", id: id, session: session, ["events": .array(list), "next": next])
    }
}
