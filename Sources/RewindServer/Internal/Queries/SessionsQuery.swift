import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// `sessions`: every stored session, each marked live when an app streams it now.
struct SessionsQuery: InspectorQuery {
    var id: JSONValue?

    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        let live = context.liveSessionIDs()
        let sessions = try context.read(id) { reader throws(LogError) in try reader.sessions() }
        return InspectorReplies.reply("sessions", id: id, ["sessions": .array(sessions.map { WireSession($0, live: live.contains($0.id)).json })])
    }
}

/// `sessions` with a filter or a page's members: the sessions the filter keeps, newest first,
/// a page at a time (``LogReader/sessions(matching:after:limit:)``), with the cursor of the
/// next page.
struct SessionPageQuery: InspectorQuery {
    var page: InspectorRequest.SessionPage

    var askInstead: String { "ask for a smaller \"limit\"" }

    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        let id = page.id
        let filter = SessionFilter(app: page.app, appVersion: page.appVersion, device: page.device, tag: page.tag,
                                   since: page.since.map(Date.init(timeIntervalSince1970:)),
                                   until: page.until.map(Date.init(timeIntervalSince1970:)))
        let live = context.liveSessionIDs()
        let found = try context.read(id) { [page] reader throws(LogError) in
            try reader.sessions(matching: filter, after: page.after, limit: page.limit)
        }
        // Cut the page to fit the connection's output bound (an app's meta is its own to size),
        // as an events page is: `next` then names the last session kept.
        let budget = context.limits.maxReplyBytes / 2
        var list: [JSONValue] = []
        var used = 0
        for session in found.sessions {
            let item = WireSession(session, live: live.contains(session.id)).json
            used += item.measure(byteBudget: budget - used + 1).bytes
            if used > budget {
                guard !list.isEmpty else {
                    throw WireError(.replyTooLarge, "session \(session.id) alone is larger than this connection's reply limit of \(budget) bytes for a page", id: id)
                }
                break
            }
            list.append(item)
        }
        let next: Int64? = list.count < found.sessions.count ? found.sessions[list.count - 1].id : found.next
        return InspectorReplies.reply("sessions", id: id, ["sessions": .array(list), "next": next.map(InspectorReplies.number) ?? .null])
    }
}
