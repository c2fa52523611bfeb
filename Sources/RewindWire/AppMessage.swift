import Foundation
import RewindJSON

/// What an app sends on `/app` (subprotocol ``AppMessage/subprotocol``).
///
/// ```json
/// {"type":"hello","id":1,"session":"6F0C…","app":"Todos","version":"1.4","meta":{},"lastAckedSeq":null}
/// {"type":"event","seq":0,"at":1763700000.25,"action":{"type":"@@INIT"},"keyframe":{…},"hash":"9a3c…","durationNs":0}
/// {"type":"event","seq":1,"at":1763700000.31,"action":{"type":"add"},"patch":[…],"hash":"…","durationNs":5400,"cause":0}
/// {"type":"events","events":[{"seq":2,"at":…,"action":…,"patch":[…],"hash":"…","durationNs":900},{"seq":3,…}]}
/// {"type":"result","id":"c7","ok":true}
/// {"type":"end","id":2}
/// ```
public enum AppMessage: Sendable, Equatable {
    case hello(Hello)
    case event(WireEvent)
    /// Several events in one frame, in seq order (see ``WireEventBatch``).
    case events(WireEventBatch)
    case result(CommandResult)
    /// The session is over; `at` is when the app ended it (seconds since 1970), which a session
    /// delivered late from the device's log keeps, instead of the time it arrived.
    case end(id: JSONValue?, at: Double? = nil)

    /// The WebSocket subprotocol apps speak.
    public static let subprotocol = "rewind.app.v1"
    /// The path apps connect to.
    public static let path = "/app"

    /// Opens (or, after a reconnect, resumes) a session.
    public struct Hello: Sendable, Equatable {
        public var id: JSONValue?
        /// The app's uuid for this recording; the same uuid after a reconnect resumes it.
        public var session: String
        public var app: String
        public var version: String?
        /// Free-form JSON object: device, host, anything the app wants to show.
        public var meta: JSONObject
        /// The last seq the server acknowledged before the connection dropped, if any.
        public var lastAckedSeq: Int64?
        /// When the recording started (seconds since 1970); the server's clock when absent.
        public var startedAt: Double?
        /// The uuid of the session this one replays (a replay is a session of its own).
        public var replayOf: String?
        /// The run: the sessions one process started share it (a UUID string, at most 128 bytes).
        public var run: String?
        /// Which state hash the session's events carry (`hashVersion`, 1 or 2; 1 when absent).
        public var hashVersion: StateHashVersion
        /// The session's secret, which only its app holds: it binds the session to the app at its
        /// first `hello` and proves it at every later one (16 to 128 printable ASCII bytes).
        public var secret: String?

        public init(id: JSONValue? = nil, session: String, app: String, version: String? = nil,
                    meta: JSONObject = [:], lastAckedSeq: Int64? = nil, startedAt: Double? = nil,
                    replayOf: String? = nil, run: String? = nil, hashVersion: StateHashVersion = .v1,
                    secret: String? = nil) {
            self.secret = secret
            self.run = run
            self.hashVersion = hashVersion
            self.id = id
            self.session = session
            self.app = app
            self.version = version
            self.meta = meta
            self.lastAckedSeq = lastAckedSeq
            self.startedAt = startedAt
            self.replayOf = replayOf
        }
    }

    /// The answer to a ``ServerToApp/command(_:)``.
    public struct CommandResult: Sendable, Equatable {
        /// The command's id.
        public var id: JSONValue
        public var ok: Bool
        /// Why it failed, or a note on success.
        public var message: String?

        public init(id: JSONValue, ok: Bool, message: String? = nil) {
            self.id = id
            self.ok = ok
            self.message = message
        }
    }

    /// Reads one frame; a broken frame is a ``WireError`` with a code and a sentence.
    public init(frame: [UInt8]) throws(WireError) {
        try self.init(json: parseFrame(frame))
    }

    public init(json: JSONValue) throws(WireError) {
        let f = try WireFields(json)
        switch f.type {
        case "hello":
            self = .hello(Hello(
                id: f.id, session: try f.string("session"), app: try f.string("app"),
                version: try f.optionalString("version"), meta: try f.optionalObject("meta") ?? [:],
                lastAckedSeq: try f.optionalSeq("lastAckedSeq"),
                startedAt: f.object["startedAt"] == nil ? nil : try f.number("startedAt"),
                replayOf: try f.optionalString("replayOf"), run: try f.optionalString("run"),
                secret: try f.optionalString("secret")))
            if case .hello(let hello) = self, let secret = hello.secret,
               !(16...128).contains(secret.utf8.count) || secret.utf8.contains(where: { $0 < 0x21 || $0 > 0x7e }) {
                throw f.fail("secret", "16 to 128 printable ASCII characters")
            }
            if case .hello(let hello) = self, hello.session.isEmpty { throw f.fail("session", "a non-empty string") }
            if case .hello(let hello) = self, let run = hello.run, run.isEmpty || run.utf8.count > 128 {
                throw f.fail("run", "a non-empty string of at most 128 bytes")
            }
            // What names a session is compared as stored, and PostgreSQL cannot hold U+0000 in
            // text (it keeps U+FFFD): such a name would never match itself again.
            if case .hello(let hello) = self {
                for (name, value) in [("session", hello.session), ("app", hello.app), ("run", hello.run), ("replayOf", hello.replayOf)] {
                    if let value, value.unicodeScalars.contains("\u{0}") { throw f.fail(name, "a string without U+0000") }
                }
            }
            if let version = try f.optionalInt("hashVersion") {
                guard let known = StateHashVersion(rawValue: Int(version)), case .hello(var hello) = self else {
                    throw f.fail("hashVersion", "1 or 2")
                }
                hello.hashVersion = known
                self = .hello(hello)
            }
        case "event":
            self = .event(try WireEvent(fields: f))
        case "events":
            self = .events(try WireEventBatch(fields: f))
        case "result":
            guard let id = f.id else { throw f.fail("id", "the id of the command it answers") }
            guard let ok = try f.optionalBool("ok") else { throw f.fail("ok", "true or false") }
            self = .result(CommandResult(id: id, ok: ok, message: try f.optionalString("message")))
        case "end":
            self = .end(id: f.id, at: f.object["at"] == nil ? nil : try f.number("at"))
        default:
            throw WireError(.unknownType, "unknown message type \"\(f.type)\" on \(Self.path); expected hello, event, events, result or end", id: f.id)
        }
    }

    /// The message as JSON.
    public var json: JSONValue {
        switch self {
        case .hello(let h):
            var o: JSONObject = ["type": "hello"]
            if let id = h.id { o["id"] = id }
            o["session"] = .string(h.session)
            o["app"] = .string(h.app)
            if let version = h.version { o["version"] = .string(version) }
            o["meta"] = .object(h.meta)
            o["lastAckedSeq"] = h.lastAckedSeq.map { .number(JSONNumber($0)) } ?? .null
            if let startedAt = h.startedAt, let n = JSONNumber(startedAt) { o["startedAt"] = .number(n) }
            if let replayOf = h.replayOf { o["replayOf"] = .string(replayOf) }
            if let run = h.run { o["run"] = .string(run) }
            if h.hashVersion != .v1 { o["hashVersion"] = .number(JSONNumber(h.hashVersion.rawValue)) }
            if let secret = h.secret { o["secret"] = .string(secret) }
            return .object(o)
        case .event(let e):
            return e.json
        case .events(let batch):
            return batch.json
        case .result(let r):
            var o: JSONObject = ["type": "result", "id": r.id, "ok": .bool(r.ok)]
            if let message = r.message { o["message"] = .string(message) }
            return .object(o)
        case .end(let id, let at):
            var o: JSONObject = ["type": "end"]
            if let id { o["id"] = id }
            if let at, let n = JSONNumber(at) { o["at"] = .number(n) }
            return .object(o)
        }
    }
}

/// One recorded action as it travels: the forward patch (or a whole state, the keyframe) and
/// the hash of the state it gives.
public struct WireEvent: Sendable, Equatable {
    public var seq: Int64
    /// Seconds since 1970.
    public var at: Double
    public var action: JSONValue
    /// The RFC 6902 patch from the previous state; `nil` when ``keyframe`` carries the state.
    public var patch: JSONValue?
    /// The whole state after the action (always at seq 0).
    public var keyframe: JSONValue?
    /// ``JSONValue/stableHash`` of the state after the action.
    public var hash: UInt64
    public var durationNs: Int64
    public var cause: Int64?
    public var coalesced: Bool
    /// JSON Pointers (`/state/…`, `/action/…`) of the numbers sent as `"NaN"`, `"Infinity"` or
    /// `"-Infinity"` strings; empty when there are none.
    public var nonFinite: [String]
    /// Where the app sent the action: `{"file": "MyApp/CartView.swift", "line": 42, "function": "body"}`.
    public var site: Site?

    /// A send site on the wire.
    public struct Site: Sendable, Equatable {
        public var file: String
        public var line: Int
        public var function: String

        /// What a site must be, for the sentence that refuses one.
        static let expected = "an object {\"file\": string, \"line\": integer 0 or more, \"function\": string}, names of at most \(maxNameBytes) bytes"

        /// A site read from its JSON, or `nil` when it is not one within the bounds.
        public init?(json: JSONValue) {
            guard case .object(let members) = json,
                  case .string(let file)? = members["file"], file.utf8.count <= Self.maxNameBytes,
                  case .string(let function)? = members["function"], function.utf8.count <= Self.maxNameBytes,
                  case .number(let number)? = members["line"], let line = number.int64Value, line >= 0, line <= Int64(Int32.max)
            else { return nil }
            self.init(file: file, line: Int(line), function: function)
        }

        public init(file: String, line: Int, function: String) {
            self.file = file
            self.line = line
            self.function = function
        }

        /// The most bytes `file` or `function` may take.
        public static let maxNameBytes = 1_024

        public var json: JSONValue {
            ["file": .string(file), "line": .number(JSONNumber(Int64(line))), "function": .string(function)]
        }
    }

    /// The most pointers one event may list.
    public static let maxNonFinite = 10_000

    public init(seq: Int64, at: Double, action: JSONValue, patch: JSONValue? = nil, keyframe: JSONValue? = nil,
                hash: UInt64, durationNs: Int64 = 0, cause: Int64? = nil, coalesced: Bool = false,
                nonFinite: [String] = [], site: Site? = nil) {
        self.site = site
        self.nonFinite = nonFinite
        self.seq = seq
        self.at = at
        self.action = action
        self.patch = patch
        self.keyframe = keyframe
        self.hash = hash
        self.durationNs = durationNs
        self.cause = cause
        self.coalesced = coalesced
    }

    init(fields f: WireFields) throws(WireError) {
        seq = try f.seq("seq")
        at = try f.number("at")
        action = try f.value("action")
        if let state = f.object["keyframe"] {
            if let patch = f.object["patch"], patch != .null {
                throw WireError(.badMessage, "event: give either \"patch\" or \"keyframe\", not both", id: f.id)
            }
            patch = nil
            keyframe = state
        } else {
            guard let operations = f.object["patch"], case .array = operations else {
                throw f.fail("patch", "an array of operations, or a \"keyframe\" given instead")
            }
            patch = operations
            keyframe = nil
        }
        guard let hash = parseWireHash(try f.string("hash")) else { throw f.fail("hash", "16 hex digits") }
        self.hash = hash
        durationNs = try f.optionalSeq("durationNs") ?? 0
        cause = try f.optionalSeq("cause")
        if let cause, cause >= seq {
            throw f.fail("cause", "the seq of an earlier event, below this event's seq \(seq); got \(cause)")
        }
        coalesced = try f.optionalBool("coalesced") ?? false
        nonFinite = []
        if let listed = f.object["nonFinite"] {
            guard case .array(let items) = listed, items.count <= Self.maxNonFinite else {
                throw f.fail("nonFinite", "an array of at most \(Self.maxNonFinite) JSON Pointers")
            }
            for item in items {
                // A valid JSON Pointer whose first token is exactly `state` or `action`: not
                // `/stateX/…`, `/actionable` or an invalid escape such as `/state/~9`.
                guard case .string(let pointer) = item, let parsed = try? JSONPointer(pointer),
                      parsed.tokens.first == "state" || parsed.tokens.first == "action" else {
                    throw f.fail("nonFinite", "JSON Pointers under /state or /action")
                }
                nonFinite.append(pointer)
            }
        }
        site = nil
        if let given = f.object["site"], given != .null {
            guard let read = Site(json: given) else { throw f.fail("site", Site.expected) }
            site = read
        }
    }

    /// The event as a wire message.
    public var json: JSONValue { json(withType: true) }

    /// The event's members, with `"type": "event"` first when `withType` (a message of its own)
    /// and without it as an element of an `events` batch.
    public func json(withType: Bool) -> JSONValue {
        var o: JSONObject = withType ? ["type": "event"] : [:]
        o["seq"] = .number(JSONNumber(seq))
        o["at"] = .number(JSONNumber(at) ?? JSONNumber(0))
        o["action"] = action
        if let keyframe { o["keyframe"] = keyframe } else { o["patch"] = patch ?? [] }
        o["hash"] = .string(wireHash(hash))
        o["durationNs"] = .number(JSONNumber(durationNs))
        if let cause { o["cause"] = .number(JSONNumber(cause)) }
        if coalesced { o["coalesced"] = true }
        if !nonFinite.isEmpty { o["nonFinite"] = .array(nonFinite.map { .string($0) }) }
        if let site { o["site"] = site.json }
        return .object(o)
    }
}
