import RewindJSON

/// What an inspector sends on `/inspect` (subprotocol ``InspectorRequest/subprotocol``).
/// Every request has an `id`; the reply has the same `type` and echoes the `id`.
///
/// ```json
/// {"type":"sessions","id":1}
/// {"type":"sessions","id":9,"tag":"bug report","since":1763700000,"limit":100,"after":1234}
/// {"type":"subscribe","id":2,"session":"*"}
/// {"type":"events","id":3,"session":"latest","from":0,"limit":200}
/// {"type":"state","id":4,"session":"3","seq":120,"path":"/user"}
/// {"type":"diff","id":5,"session":"3","from":10,"to":20}
/// {"type":"blame","id":6,"session":"3","path":"/cart/items"}
/// {"type":"find","id":8,"session":"3","path":"/cart/total","lt":0,"all":true}
/// {"type":"command","id":7,"session":"3","kind":"jump","seq":120}
/// ```
public enum InspectorRequest: Sendable, Equatable {
    /// Every session, oldest first: a `sessions` request with no filter or paging member.
    case sessions(id: JSONValue?)
    /// A page of the sessions a filter keeps, newest first: a `sessions` request with any of
    /// ``SessionPage/members``.
    case sessionPage(SessionPage)
    /// Live events of one session (id, uuid prefix or `latest`) or of all (`*`).
    case subscribe(id: JSONValue?, session: String)
    case unsubscribe(id: JSONValue?, session: String)
    /// A page of stored events, oldest first, from seq `from`.
    case events(id: JSONValue?, session: String, from: Int64, limit: Int, typeGlob: String?, text: String?)
    /// The state after seq, or the value at `path` within it.
    case state(id: JSONValue?, session: String, seq: Int64, path: JSONPointer?)
    case diff(id: JSONValue?, session: String, from: Int64, to: Int64)
    case blame(id: JSONValue?, session: String, path: JSONPointer)
    /// The seqs where the value at a path starts (or stops) meeting a condition.
    case find(Find)
    /// Two sessions side by side (a branch and its original): the first seq whose state
    /// differs, and the diff from `session`'s state at `seq` to `with`'s.
    case compare(id: JSONValue?, session: String, with: String, seq: Int64?)
    /// A command for the session's app (`session` is required).
    case command(Command)

    /// The WebSocket subprotocol inspectors speak.
    public static let subprotocol = "rewind.inspect.v1"
    /// The path inspectors connect to.
    public static let path = "/inspect"
    /// The most words in an `events` request's `text` filter.
    public static let maxTextWords = 64
    /// The longest `text` filter, in UTF-8 bytes.
    public static let maxTextBytes = 1_024
    /// The largest page of events one request may ask for.
    public static let maxPage = 5_000

    /// A `find` request: exactly one condition member (`is`, `isNot`, `gt`, `lt`, `matches`,
    /// `exists`, `missing`, `changed`), and `all`, `first`, `limit` (1 to 1,000, default 1,000).
    public struct Find: Sendable, Equatable {
        public enum Condition: Sendable, Equatable {
            case isEqual(JSONValue), isNot(JSONValue), greaterThan(Double), lessThan(Double), matches(String)
            case exists, missing, changed
        }

        public var id: JSONValue?
        public var session: String
        public var path: JSONPointer
        public var condition: Condition
        public var all: Bool
        public var first: Bool
        public var limit: Int

        /// The most hits one request returns.
        public static let maxLimit = 1_000

        public init(id: JSONValue?, session: String, path: JSONPointer, condition: Condition, all: Bool = false,
                    first: Bool = false, limit: Int = maxLimit) {
            self.id = id
            self.session = session
            self.path = path
            self.condition = condition
            self.all = all
            self.first = first
            self.limit = limit
        }

        init(fields f: WireFields) throws(WireError) {
            id = f.id
            session = try f.string("session")
            guard let path = try f.optionalPointer("path") else { throw f.fail("path", "a JSON Pointer") }
            self.path = path
            var found: [Condition] = []
            if let value = f.object["is"] { found.append(.isEqual(value)) }
            if let value = f.object["isNot"] { found.append(.isNot(value)) }
            if f.object["gt"] != nil { found.append(.greaterThan(try f.number("gt"))) }
            if f.object["lt"] != nil { found.append(.lessThan(try f.number("lt"))) }
            if f.object["matches"] != nil {
                let pattern = try f.string("matches")
                // Bytes, not characters: one grapheme can hold megabytes of combining marks.
                guard pattern.utf8.count <= 256 else {
                    throw f.fail("matches", "a regular expression of at most 256 bytes (UTF-8); this one has \(pattern.utf8.count)")
                }
                found.append(.matches(pattern))
            }
            for (name, condition) in [("exists", Condition.exists), ("missing", .missing), ("changed", .changed)] {
                if try f.optionalBool(name) == true { found.append(condition) }
            }
            guard found.count == 1 else {
                throw WireError(.badMessage, "find: give exactly one condition: is, isNot, gt, lt, matches, exists, missing or changed", id: f.id)
            }
            condition = found[0]
            all = try f.optionalBool("all") ?? false
            first = try f.optionalBool("first") ?? false
            let limit = try f.optionalSeq("limit") ?? Int64(Self.maxLimit)
            guard limit >= 1, limit <= Int64(Self.maxLimit) else { throw f.fail("limit", "between 1 and \(Self.maxLimit)") }
            self.limit = Int(limit)
        }

        func write(into o: inout JSONObject) {
            o["session"] = .string(session)
            o["path"] = .string(path.description)
            switch condition {
            case .isEqual(let value): o["is"] = value
            case .isNot(let value): o["isNot"] = value
            case .greaterThan(let bound): o["gt"] = JSONNumber(bound).map(JSONValue.number) ?? .null
            case .lessThan(let bound): o["lt"] = JSONNumber(bound).map(JSONValue.number) ?? .null
            case .matches(let pattern): o["matches"] = .string(pattern)
            case .exists: o["exists"] = true
            case .missing: o["missing"] = true
            case .changed: o["changed"] = true
            }
            if all { o["all"] = true }
            if first { o["first"] = true }
            if limit != Self.maxLimit { o["limit"] = .number(JSONNumber(Int64(limit))) }
        }
    }

    /// A `sessions` request that filters or pages: `app`, `appVersion`, `device`, `tag` (each a
    /// non-empty string of at most ``maxValueBytes`` bytes, matched exactly), `since` and `until`
    /// (seconds since 1970: sessions that started at or after `since` and before `until`),
    /// `limit` (1 to ``maxLimit``, default ``defaultLimit``) and `after` (the `next` of the page
    /// before). The reply lists the page newest first, with `next` the cursor of the following
    /// page or `null`.
    public struct SessionPage: Sendable, Equatable {
        public var id: JSONValue?
        public var app: String?
        public var appVersion: String?
        public var device: String?
        public var tag: String?
        public var since: Double?
        public var until: Double?
        public var limit: Int
        /// The `next` of the page before: the page lists the sessions below this id.
        public var after: Int64?

        /// The members that make a `sessions` request a page.
        public static let members = ["app", "appVersion", "device", "tag", "since", "until", "limit", "after"]
        /// A page's size when `limit` is absent.
        public static let defaultLimit = 100
        /// The largest `limit`.
        public static let maxLimit = 1_000
        /// The longest `app`, `appVersion`, `device` or `tag`, in bytes of UTF-8.
        public static let maxValueBytes = 256

        public init(id: JSONValue? = nil, app: String? = nil, appVersion: String? = nil, device: String? = nil, tag: String? = nil,
                    since: Double? = nil, until: Double? = nil, limit: Int = defaultLimit, after: Int64? = nil) {
            self.id = id
            (self.app, self.appVersion, self.device, self.tag) = (app, appVersion, device, tag)
            (self.since, self.until, self.limit, self.after) = (since, until, limit, after)
        }

        init(fields f: WireFields) throws(WireError) {
            id = f.id
            func text(_ member: String) throws(WireError) -> String? {
                guard let value = try f.optionalString(member) else { return nil }
                guard !value.isEmpty, value.utf8.count <= Self.maxValueBytes else {
                    throw f.fail(member, "a non-empty string of at most \(Self.maxValueBytes) bytes; this one has \(value.utf8.count)")
                }
                return value
            }
            func time(_ member: String) throws(WireError) -> Double? {
                guard let value = f.object[member], value != .null else { return nil }
                guard case .number(let number) = value, number.doubleValue.isFinite else {
                    throw f.fail(member, "a time in seconds since 1970 (a number)")
                }
                return number.doubleValue
            }
            app = try text("app")
            appVersion = try text("appVersion")
            device = try text("device")
            tag = try text("tag")
            since = try time("since")
            until = try time("until")
            let limit = try f.optionalInt("limit") ?? Int64(Self.defaultLimit)
            guard limit >= 1, limit <= Int64(Self.maxLimit) else { throw f.fail("limit", "between 1 and \(Self.maxLimit)") }
            self.limit = Int(limit)
            after = try f.optionalSeq("after")
        }

        func write(into o: inout JSONObject) {
            if let app { o["app"] = .string(app) }
            if let appVersion { o["appVersion"] = .string(appVersion) }
            if let device { o["device"] = .string(device) }
            if let tag { o["tag"] = .string(tag) }
            if let since, let number = JSONNumber(since) { o["since"] = .number(number) }
            if let until, let number = JSONNumber(until) { o["until"] = .number(number) }
            o["limit"] = .number(JSONNumber(Int64(limit)))
            if let after { o["after"] = .number(JSONNumber(after)) }
        }
    }

    public init(frame: [UInt8]) throws(WireError) {
        try self.init(json: parseFrame(frame))
    }

    public init(json: JSONValue) throws(WireError) {
        let f = try WireFields(json)
        switch f.type {
        case "sessions":
            // A member set to null counts as absent, so a client that always sends every
            // member still gets the whole list when it sets none.
            if SessionPage.members.contains(where: { f.object[$0] != nil && f.object[$0] != .null }) {
                self = .sessionPage(try SessionPage(fields: f))
            } else {
                self = .sessions(id: f.id)
            }
        case "subscribe":
            self = .subscribe(id: f.id, session: try f.string("session"))
        case "unsubscribe":
            self = .unsubscribe(id: f.id, session: try f.string("session"))
        case "events":
            let limit = try f.optionalSeq("limit") ?? 200
            guard limit >= 1, limit <= Int64(Self.maxPage) else { throw f.fail("limit", "between 1 and \(Self.maxPage)") }
            let text = try f.optionalString("text")
            if let text {
                // Full-text cost grows faster than the word count: keep one query cheap.
                let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).count
                guard words <= Self.maxTextWords, text.utf8.count <= Self.maxTextBytes else {
                    throw f.fail("text", "at most \(Self.maxTextWords) words and \(Self.maxTextBytes) bytes; got \(words) words, \(text.utf8.count) bytes")
                }
            }
            self = .events(id: f.id, session: try f.string("session"), from: try f.optionalSeq("from") ?? 0,
                           limit: Int(limit), typeGlob: try f.optionalString("typeGlob"), text: text)
        case "state":
            self = .state(id: f.id, session: try f.string("session"), seq: try f.seq("seq"), path: try f.optionalPointer("path"))
        case "diff":
            self = .diff(id: f.id, session: try f.string("session"), from: try f.seq("from"), to: try f.seq("to"))
        case "blame":
            guard let path = try f.optionalPointer("path") else { throw f.fail("path", "a JSON Pointer") }
            self = .blame(id: f.id, session: try f.string("session"), path: path)
        case "find":
            self = .find(try Find(fields: f))
        case "compare":
            self = .compare(id: f.id, session: try f.string("session"), with: try f.string("with"), seq: try f.optionalSeq("seq"))
        case "command":
            let command = try Command(fields: f)
            guard command.session != nil else { throw f.fail("session", "the session whose app should run the command") }
            self = .command(command)
        default:
            throw WireError(.unknownType, "unknown message type \"\(f.type)\" on \(Self.path); expected sessions, subscribe, unsubscribe, events, state, diff, blame, find, compare or command", id: f.id)
        }
    }

    /// The request's id, echoed by its reply.
    public var id: JSONValue? {
        switch self {
        case .sessions(let id), .subscribe(let id, _), .unsubscribe(let id, _), .events(let id, _, _, _, _, _),
             .state(let id, _, _, _), .diff(let id, _, _, _), .blame(let id, _, _):
            return id
        case .find(let find):
            return find.id
        case .sessionPage(let page):
            return page.id
        case .compare(let id, _, _, _):
            return id
        case .command(let command):
            return command.id
        }
    }

    /// The request's `type`, which its reply repeats.
    public var type: String {
        switch self {
        case .sessions, .sessionPage: "sessions"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .events: "events"
        case .state: "state"
        case .diff: "diff"
        case .blame: "blame"
        case .find: "find"
        case .compare: "compare"
        case .command: "command"
        }
    }

    public var json: JSONValue {
        var o: JSONObject = ["type": .string(type)]
        if let id { o["id"] = id }
        switch self {
        case .sessions:
            break
        case .sessionPage(let page):
            page.write(into: &o)
        case .subscribe(_, let session), .unsubscribe(_, let session):
            o["session"] = .string(session)
        case .events(_, let session, let from, let limit, let typeGlob, let text):
            o["session"] = .string(session)
            o["from"] = .number(JSONNumber(from))
            o["limit"] = .number(JSONNumber(limit))
            if let typeGlob { o["typeGlob"] = .string(typeGlob) }
            if let text { o["text"] = .string(text) }
        case .state(_, let session, let seq, let path):
            o["session"] = .string(session)
            o["seq"] = .number(JSONNumber(seq))
            if let path { o["path"] = .string(path.description) }
        case .diff(_, let session, let from, let to):
            o["session"] = .string(session)
            o["from"] = .number(JSONNumber(from))
            o["to"] = .number(JSONNumber(to))
        case .blame(_, let session, let path):
            o["session"] = .string(session)
            o["path"] = .string(path.description)
        case .find(let find):
            find.write(into: &o)
        case .compare(_, let session, let with, let seq):
            o["session"] = .string(session)
            o["with"] = .string(with)
            if let seq { o["seq"] = .number(JSONNumber(seq)) }
        case .command(let command):
            return command.json(type: "command")
        }
        return .object(o)
    }
}
