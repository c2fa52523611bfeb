import RewindJSON

/// What the server sends an app on `/app`.
///
/// ```json
/// {"type":"welcome","id":1,"session":"6F0C…","nextSeq":42,"maxMessage":68157440,"maxState":67108864}
/// {"type":"ack","seq":41}
/// {"type":"command","id":"c7","kind":"jump","seq":12,"state":{…}}
/// {"type":"error","code":"seq-gap","message":"…"}
/// {"type":"ended","id":2,"session":"6F0C…"}
/// ```
public enum ServerToApp: Sendable, Equatable {
    /// The answer to `hello`: the seq the server expects next (0 for a new session; after a
    /// reconnect, one past the last event it stored, so the app resends from there), and the
    /// server's limits (`nil` from a server that does not state them).
    case welcome(id: JSONValue?, session: String, nextSeq: Int64, limits: WireLimits? = nil)
    /// Every event up to and including `seq` is durable in the log.
    case ack(seq: Int64)
    /// Something for the app to do, from an inspector.
    case command(Command)
    case error(WireError)
    /// The session's `end` is durable in the log (answering the app's `end`, whose `id` it
    /// echoes): the app may forget the session.
    case ended(id: JSONValue?, session: String)

    public init(frame: [UInt8]) throws(WireError) {
        try self.init(json: parseFrame(frame))
    }

    public init(json: JSONValue) throws(WireError) {
        let f = try WireFields(json)
        switch f.type {
        case "welcome":
            self = .welcome(id: f.id, session: try f.string("session"), nextSeq: try f.seq("nextSeq"),
                            limits: try WireLimits(fields: f))
        case "ack":
            self = .ack(seq: try f.seq("seq"))
        case "command":
            self = .command(try Command(fields: f))
        case "error":
            let code = WireError.Code(rawValue: try f.string("code")) ?? .badMessage
            self = .error(WireError(code, try f.string("message"), id: f.id))
        case "ended":
            self = .ended(id: f.id, session: try f.string("session"))
        default:
            throw WireError(.unknownType, "unknown message type \"\(f.type)\" from the server", id: f.id)
        }
    }

    public var json: JSONValue {
        switch self {
        case .welcome(let id, let session, let nextSeq, let limits):
            var o: JSONObject = ["type": "welcome"]
            if let id { o["id"] = id }
            o["session"] = .string(session)
            o["nextSeq"] = .number(JSONNumber(nextSeq))
            if let limits {
                o["maxMessage"] = .number(JSONNumber(Int64(limits.maxMessage)))
                o["maxState"] = .number(JSONNumber(Int64(limits.maxState)))
            }
            return .object(o)
        case .ack(let seq):
            return ["type": "ack", "seq": .number(JSONNumber(seq))]
        case .command(let command):
            return command.json(type: "command")
        case .error(let error):
            return error.json
        case .ended(let id, let session):
            var o: JSONObject = ["type": "ended"]
            if let id { o["id"] = id }
            o["session"] = .string(session)
            return .object(o)
        }
    }
}

/// What a server accepts on `/app`, as its `welcome` states it.
public struct WireLimits: Sendable, Equatable {
    /// The largest message the server reads on `/app`, in bytes; a larger one closes the
    /// connection with 1009.
    public var maxMessage: Int
    /// The largest state a session may reach, in bytes (`--max-state`); an event whose state is
    /// larger is refused with `state-too-large`.
    public var maxState: Int

    /// What a server that does not state its limits accepts: its defaults (`--max-message
    /// 16MiB`, `--max-state 64MiB`).
    public static let unstated = WireLimits(maxMessage: 16 << 20, maxState: 64 << 20)

    /// The largest message every app reads from the server, in bytes: the recorder's
    /// libwebsockets client refuses a larger one with 1009 (URLSession's takes 128 MiB). A
    /// server refuses a command that would be larger instead of sending it.
    public static let appReceiveLimit = 16 << 20

    public init(maxMessage: Int, maxState: Int) {
        self.maxMessage = maxMessage
        self.maxState = maxState
    }

    /// The limits a `welcome` states; `nil` when it states neither. A missing one is
    /// ``unstated``'s.
    init?(fields f: WireFields) throws(WireError) {
        let message = try f.optionalSeq("maxMessage")
        let state = try f.optionalSeq("maxState")
        guard message != nil || state != nil else { return nil }
        maxMessage = message.map { Int(clamping: $0) } ?? Self.unstated.maxMessage
        maxState = state.map { Int(clamping: $0) } ?? Self.unstated.maxState
    }
}

/// A command for an app, as an inspector sends it (with `session`) and as the server relays it
/// (without). Its members travel as given; each kind's are typed by a ``CommandArguments`` type,
/// read with ``decode(_:)`` and written with ``update(_:)``.
public struct Command: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Show `state`, the state after `seq` (``JumpArguments``); the server fills `state` from
        /// the log when only `seq` is given. The app's work goes on underneath.
        case jump
        /// Return to the live state, and record again if paused.
        case resume
        /// Send `action` through the store as the user would (``DispatchArguments``).
        case dispatch
        /// Send `actions` through the reducer from `state` (the live state when absent) at `pace`
        /// actions per second; `of` and `from` name the session and seq they come from
        /// (``ReplayArguments``).
        case replay
        /// Stop recording until `resume`.
        case pause
        /// Recompute the recording with the seqs in `skip` left out and those in `edit` (seq →
        /// action) replaced, without effects, into a new branch session; the server adds the
        /// recording (`state` at seq 0, its time `at`, `steps` 1…n, `of`). The live store is not
        /// touched (``BranchArguments``).
        case branch
    }

    public var id: JSONValue
    public var kind: Kind
    /// The session it is for (inspector → server only).
    public var session: String?
    /// The members other than `type`, `id`, `kind` and `session`, in the order given: what the
    /// server relays. Read and write them as the kind's ``CommandArguments``.
    public var arguments: JSONObject

    public init(id: JSONValue, kind: Kind, session: String? = nil, arguments: JSONObject = [:]) {
        self.id = id
        self.kind = kind
        self.session = session
        self.arguments = arguments
    }

    init(fields f: WireFields) throws(WireError) {
        guard let id = f.id else { throw f.fail("id", "present, so the result can be matched") }
        let kindText = try f.string("kind")
        guard let kind = Kind(rawValue: kindText) else {
            throw WireError(.badMessage, "command: unknown kind \"\(kindText)\"; expected jump, resume, dispatch, replay, pause or branch", id: id)
        }
        self.id = id
        self.kind = kind
        session = try f.optionalString("session")
        var arguments = f.object
        for member in ["type", "id", "kind", "session"] { arguments["\(member)"] = nil }
        self.arguments = arguments
    }

    /// The command as a message of `type`, with `session` when set.
    public func json(type: String) -> JSONValue {
        var o: JSONObject = ["type": .string(type), "id": id, "kind": .string(kind.rawValue)]
        if let session { o["session"] = .string(session) }
        for (key, value) in arguments { o[key] = value }
        return .object(o)
    }
}
