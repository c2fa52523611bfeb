import RewindJSON

/// A session as the inspector protocol shows it.
///
/// `{"id":3,"uuid":"6F0C…","app":"Todos","startedAt":1763700000.2,"endedAt":null,"live":true,"state":"live","eventCount":1042,"lastSeq":1041,"meta":{},
/// "appVersion":"1.4","device":"iPhone15,2","os":"iOS 17.4.1","tags":["bug report"]}`
public struct WireSession: Sendable, Equatable {
    public var id: Int64
    public var uuid: String
    public var app: String
    public var startedAt: Double
    public var endedAt: Double?
    /// An app is connected and streaming it now.
    public var live: Bool

    /// The session's one state, the same in the page, the CLI and the protocol.
    public enum State: String, Sendable {
        /// An app streams it now.
        case live
        /// Its app said `end`.
        case ended
        /// It never ended and no app holds it: its app died, was killed or lost its connection
        /// (it becomes live again if that app comes back and resumes it).
        case interrupted

        /// The state of a session that ended at `endedAt` (`nil`: never) and that an app holds
        /// now or not.
        public init(endedAt: Double?, held: Bool) {
            self = endedAt != nil ? .ended : held ? .live : .interrupted
        }
    }

    /// ``State/live`` while an app streams it, ``State/ended`` once its app said `end`,
    /// ``State/interrupted`` otherwise.
    public var state: State { live ? .live : State(endedAt: endedAt, held: false) }
    public var eventCount: Int
    public var lastSeq: Int64?
    public var replayOf: String?
    public var meta: JSONValue
    /// The run the session belongs to: the sessions one process started share it.
    public var run: String?
    /// The app's version (`meta.version`), as the `appVersion` filter matches it.
    public var appVersion: String?
    /// The device model (`meta.device`), as the `device` filter matches it.
    public var device: String?
    /// The operating system (`meta.os`).
    public var os: String?
    /// The session's tags (from `meta.tags`), as the `tag` filter matches them.
    public var tags: [String]
    /// The app died of a crash: the action of the session's last event, `@@rewind/crashed`
    /// (`signal`, `at`, `reducing`, `lost`); `null` otherwise.
    public var crash: JSONValue?

    public init(id: Int64, uuid: String, app: String, startedAt: Double, endedAt: Double? = nil, live: Bool,
                eventCount: Int, lastSeq: Int64?, replayOf: String? = nil, meta: JSONValue = [:], run: String? = nil,
                appVersion: String? = nil, device: String? = nil, os: String? = nil, tags: [String] = [], crash: JSONValue? = nil) {
        self.crash = crash
        self.run = run
        self.appVersion = appVersion
        self.device = device
        self.os = os
        self.tags = tags
        self.id = id
        self.uuid = uuid
        self.app = app
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.live = live
        self.eventCount = eventCount
        self.lastSeq = lastSeq
        self.replayOf = replayOf
        self.meta = meta
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .number(JSONNumber(id)), "uuid": .string(uuid), "app": .string(app)]
        o["startedAt"] = JSONNumber(startedAt).map(JSONValue.number) ?? .null
        o["endedAt"] = endedAt.flatMap(JSONNumber.init).map(JSONValue.number) ?? .null
        o["live"] = .bool(live)
        o["state"] = .string(state.rawValue)
        o["eventCount"] = .number(JSONNumber(eventCount))
        o["lastSeq"] = lastSeq.map { .number(JSONNumber($0)) } ?? .null
        o["replayOf"] = replayOf.map(JSONValue.string) ?? .null
        o["meta"] = meta
        o["run"] = run.map(JSONValue.string) ?? .null
        o["appVersion"] = appVersion.map(JSONValue.string) ?? .null
        o["device"] = device.map(JSONValue.string) ?? .null
        o["os"] = os.map(JSONValue.string) ?? .null
        o["tags"] = .array(tags.map(JSONValue.string))
        o["crash"] = crash ?? .null
        return .object(o)
    }

    public init(json: JSONValue) throws(WireError) {
        guard case .object(let object) = json else { throw WireError(.badMessage, "a session must be a JSON object") }
        let f = WireFields(object: object, type: "session")
        id = try f.optionalInt("id") ?? -1
        uuid = try f.string("uuid")
        app = try f.string("app")
        startedAt = try f.number("startedAt")
        if case .number? = f.object["endedAt"] { endedAt = try f.number("endedAt") } else { endedAt = nil }
        live = try f.optionalBool("live") ?? false
        eventCount = Int(try f.optionalInt("eventCount") ?? 0)
        lastSeq = try f.optionalSeq("lastSeq")
        replayOf = try f.optionalString("replayOf")
        meta = f.object["meta"] ?? [:]
        run = try f.optionalString("run")
        appVersion = try f.optionalString("appVersion")
        device = try f.optionalString("device")
        os = try f.optionalString("os")
        tags = f.object["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let crash = f.object["crash"], crash.objectValue != nil { self.crash = crash } else { crash = nil }
    }
}
