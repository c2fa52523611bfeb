import RewindJSON
import RewindWebSocket
import RewindWire

/// `subscribe` and `unsubscribe`: live events of one session (or `*`, all) to this inspector
/// or no more. The hub queues the reply itself, so it comes before the first live event.
struct SubscriptionQuery: InspectorQuery {
    var id: JSONValue?
    var session: String
    var subscribe: Bool
    var connection: WebSocketConnection

    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        let resolved = session == "*" ? nil : try context.resolve(session, id: id)
        var members: JSONObject = ["session": .string(resolved?.uuid ?? "*")]
        if let resolved { members["sessionId"] = InspectorReplies.number(resolved.id) }
        let reply = InspectorReplies.reply(subscribe ? "subscribe" : "unsubscribe", id: id, members).serializedBytes(.compact)
        if subscribe {
            context.hub.subscribe(connection, session: resolved?.id, reply: reply)
        } else {
            context.hub.unsubscribe(connection, session: resolved?.id, reply: reply)
        }
        return nil
    }
}
