import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWire

/// The JSON of inspector replies: each has the request's `type` and echoes its `id`.
enum InspectorReplies {
    static func reply(_ type: String, id: JSONValue?, _ members: JSONObject) -> JSONValue {
        var object: JSONObject = ["type": .string(type)]
        if let id { object["id"] = id }
        for (key, value) in members { object[key] = value }
        return .object(object)
    }

    /// A reply about one session: its uuid and id come first, then `members`.
    static func reply(_ type: String, id: JSONValue?, session: SessionInfo, _ members: JSONObject) -> JSONValue {
        var object: JSONObject = ["session": .string(session.uuid), "sessionId": number(session.id)]
        for (key, value) in members { object[key] = value }
        return reply(type, id: id, object)
    }

    static func number(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

    static func time(_ date: Date) -> JSONValue {
        JSONNumber(date.timeIntervalSince1970).map(JSONValue.number) ?? .null
    }

    /// One stored event as an `events` page lists it.
    static func event(_ event: LogEvent, keyframe: JSONValue?) -> JSONValue {
        var o: JSONObject = ["seq": number(event.seq), "at": time(event.at), "actionType": .string(event.actionType),
                             "action": event.action]
        if let keyframe {
            o["keyframe"] = keyframe
        } else {
            o["patch"] = event.patch
            // The page steps back through states without a round trip per step.
            o["inverse"] = event.inverse
        }
        o["hash"] = .string(wireHash(event.hash))
        o["durationNs"] = number(event.durationNs)
        if let cause = event.cause { o["cause"] = number(cause) }
        if event.coalesced { o["coalesced"] = true }
        // Where the strings "NaN", "Infinity" and "-Infinity" stand for numbers, as the app's
        // event said (the page shows them as numbers, marked).
        if !event.nonFinite.isEmpty { o["nonFinite"] = .array(event.nonFinite.map(JSONValue.string)) }
        if let site = event.site {
            o["site"] = ["file": .string(site.file), "line": number(Int64(site.line)), "function": .string(site.function)]
        }
        return .object(o)
    }

    static func findHit(_ hit: FindHit) -> JSONValue {
        ["seq": number(hit.seq), "at": time(hit.at), "event": .string(hit.kind.rawValue), "actionType": .string(hit.actionType),
         "action": hit.action, "exists": .bool(hit.value != nil), "value": hit.value ?? .null, "previous": hit.previous ?? .null]
    }

    static func blame(_ entry: BlameEntry) -> JSONValue {
        var o: JSONObject = ["seq": number(entry.seq), "at": time(entry.at), "actionType": .string(entry.actionType),
                             "action": entry.action]
        o["before"] = entry.before ?? .null
        o["after"] = entry.after ?? .null
        // What `null` above cannot say: whether the value was there at all.
        o["change"] = switch (entry.before, entry.after) {
        case (nil, _): "added"
        case (_, nil): "removed"
        default: "changed"
        }
        o["operations"] = JSONPatch(entry.operations).json
        return .object(o)
    }
}
