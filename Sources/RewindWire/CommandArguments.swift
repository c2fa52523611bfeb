import RewindJSON

/// The members one kind of ``Command`` carries, typed, with the one decode and the one encode
/// that the server, the app and the terminal all use.
///
/// A command travels as its members (``Command/arguments``), kept as given: the server relays an
/// inspector's members to the app untouched, adding only what it fills in. So the typed value is
/// read from the members (``Command/decode(_:)``) where a side needs it, and written back into
/// them (``Command/update(_:)``), where a member already there keeps its place.
public protocol CommandArguments: Sendable, Equatable {
    /// The kind of command these are the arguments of.
    static var kind: Command.Kind { get }

    /// Reads the members of a command of ``kind``; a missing or mistyped member is a
    /// `bad-message` ``WireError`` whose message is one sentence naming the kind and the member
    /// (`replay: "actions" must be an array of actions`).
    init(members: JSONObject) throws(WireError)

    /// The members, as they go on the wire.
    var members: JSONObject { get }
}

extension Command {
    /// A command of `arguments`' kind carrying its members.
    public init<Arguments: CommandArguments>(id: JSONValue, session: String? = nil, _ arguments: Arguments) {
        self.init(id: id, kind: Arguments.kind, session: session, arguments: arguments.members)
    }

    /// The command's members read as `Arguments`, which must be of the command's kind. A member
    /// that is missing or mistyped throws a `bad-message` error with the command's id.
    public func decode<Arguments: CommandArguments>(_ type: Arguments.Type) throws(WireError) -> Arguments {
        precondition(kind == Arguments.kind, "a \(kind.rawValue) command read as \(Arguments.kind.rawValue) arguments")
        do {
            return try Arguments(members: arguments)
        } catch {
            throw WireError(error.code, error.message, id: id)
        }
    }

    /// Writes `arguments`' members into the command: one already there keeps its place (so what
    /// an inspector sent is relayed in its order), a new one goes last. Members `arguments` does
    /// not write are left as they are.
    public mutating func update<Arguments: CommandArguments>(_ arguments: Arguments) {
        precondition(kind == Arguments.kind, "\(Arguments.kind.rawValue) arguments written into a \(kind.rawValue) command")
        for (key, value) in arguments.members { self.arguments[key] = value }
    }
}

/// `jump`: show the state after `seq`.
public struct JumpArguments: CommandArguments {
    public static let kind = Command.Kind.jump

    /// The seq whose state to show (an inspector gives it).
    public var seq: Int64?
    /// That state, whole (the server fills it from the log when only `seq` is given).
    public var state: JSONValue?

    public init(seq: Int64? = nil, state: JSONValue? = nil) {
        self.seq = seq
        self.state = state
    }

    public init(members: JSONObject) throws(WireError) {
        let f = WireFields(object: members, type: Self.kind.rawValue)
        seq = try f.optionalInt("seq")
        state = members["state"]
    }

    public var members: JSONObject {
        var o: JSONObject = [:]
        if let seq { o["seq"] = .number(JSONNumber(seq)) }
        if let state { o["state"] = state }
        return o
    }
}

/// `dispatch`: send `action` through the store, as the user would.
public struct DispatchArguments: CommandArguments {
    public static let kind = Command.Kind.dispatch

    /// The action, as the app encodes its actions.
    public var action: JSONValue

    public init(action: JSONValue) {
        self.action = action
    }

    public init(members: JSONObject) throws(WireError) {
        guard let action = members["action"] else {
            throw WireError(.badMessage, "dispatch: \"action\" is missing")
        }
        self.action = action
    }

    public var members: JSONObject { ["action": action] }
}

/// `replay`: send `actions` through the store's reducer from `state`, at `pace`.
public struct ReplayArguments: CommandArguments {
    public static let kind = Command.Kind.replay

    /// The recorded actions to replay, in order (a replay's mark among them carries the state it
    /// set).
    public var actions: [JSONValue]
    /// The state to start from; the app's live state when absent.
    public var state: JSONValue?
    /// The uuid of the session the actions come from.
    public var of: String?
    /// The seq, in that session, of the first action (1 when absent).
    public var from: Int64?
    /// The seq of the last action (for people; the app replays `actions`).
    public var to: Int64?
    /// Actions per second; at once when absent, 0 or less.
    public var pace: Double?
    /// Where the app sent each action, in `actions`' order (`nil` where unknown): the replay's
    /// session records them as its original did.
    public var sites: [WireEvent.Site?]?

    public init(actions: [JSONValue], state: JSONValue? = nil, of: String? = nil, from: Int64? = nil,
                to: Int64? = nil, pace: Double? = nil, sites: [WireEvent.Site?]? = nil) {
        self.sites = sites
        self.actions = actions
        self.state = state
        self.of = of
        self.from = from
        self.to = to
        self.pace = pace
    }

    public init(members: JSONObject) throws(WireError) {
        let f = WireFields(object: members, type: Self.kind.rawValue)
        guard case .array(let actions)? = members["actions"] else { throw f.fail("actions", "an array of actions") }
        self.actions = actions
        state = members["state"]
        of = try f.optionalString("of")
        from = try f.optionalInt("from")
        to = try f.optionalInt("to")
        switch members["pace"] {
        case nil, .null?: pace = nil
        case .number(let n)?: pace = n.doubleValue
        default: throw f.fail("pace", "a number of actions per second")
        }
        switch members["sites"] {
        case nil, .null?:
            sites = nil
        case .array(let given)? where given.count <= actions.count:
            var read: [WireEvent.Site?] = []
            for (index, item) in given.enumerated() {
                if item == .null { read.append(nil); continue }
                guard let site = WireEvent.Site(json: item) else { throw f.fail("sites", "an array of sites (\(WireEvent.Site.expected)) or nulls; item \(index) is not one") }
                read.append(site)
            }
            sites = read
        default:
            throw f.fail("sites", "an array of at most one site (or null) an action")
        }
    }

    public var members: JSONObject {
        var o: JSONObject = ["actions": .array(actions)]
        if let state { o["state"] = state }
        if let of { o["of"] = .string(of) }
        if let from { o["from"] = .number(JSONNumber(from)) }
        if let to { o["to"] = .number(JSONNumber(to)) }
        if let pace { o["pace"] = JSONNumber(pace).map(JSONValue.number) ?? .null }
        if let sites { o["sites"] = .array(sites.map { $0?.json ?? .null }) }
        return o
    }
}

/// `branch`: recompute a recording through the app's reducer with the `skip` seqs left out and
/// the `edit` seqs' actions replaced, into a new session. An inspector gives `skip` and `edit`;
/// the server adds the recording (`state`, `at`, `steps`, `of`).
public struct BranchArguments: CommandArguments {
    public static let kind = Command.Kind.branch

    /// An action that replaces the one recorded at `seq`.
    public struct Edit: Sendable, Equatable {
        public var seq: Int64
        public var action: JSONValue

        public init(seq: Int64, action: JSONValue) {
            self.seq = seq
            self.action = action
        }
    }

    /// One recorded action of the session branched from (seq 1 is the first step).
    public struct Step: Sendable, Equatable {
        public var action: JSONValue
        /// When it was recorded (seconds since 1970).
        public var at: Double?
        public var cause: Int64?
        public var site: WireEvent.Site?
        /// Where a replay set the state (its mark): the state it set.
        public var state: JSONValue?

        public init(action: JSONValue, at: Double? = nil, cause: Int64? = nil, site: WireEvent.Site? = nil, state: JSONValue? = nil) {
            self.action = action
            self.at = at
            self.cause = cause
            self.site = site
            self.state = state
        }

        /// The step on the wire: `{"action", "at"?, "cause"?, "site"?, "state"?}`.
        public var json: JSONValue {
            var o: JSONObject = ["action": action]
            if let at { o["at"] = BranchArguments.time(at) }
            if let cause { o["cause"] = .number(JSONNumber(cause)) }
            if let site { o["site"] = site.json }
            if let state { o["state"] = state }
            return .object(o)
        }

        /// Reads step `number` (1-based, for the error).
        init(json: JSONValue, number: Int) throws(WireError) {
            guard case .object(let members) = json, let action = members["action"] else {
                throw WireError(.badMessage, "branch: step \(number) has no \"action\"")
            }
            let f = WireFields(object: members, type: "branch: step \(number)")
            self.action = action
            at = try BranchArguments.time(members["at"], f, "at")
            cause = try f.optionalInt("cause")
            site = nil
            if let given = members["site"], given != .null {
                guard case .object(let site) = given, case .string(let file)? = site["file"],
                      case .number(let line)? = site["line"], let lineNumber = line.int64Value,
                      case .string(let function)? = site["function"] else {
                    throw f.fail("site", "{\"file\": string, \"line\": integer, \"function\": string}")
                }
                self.site = WireEvent.Site(file: file, line: Int(clamping: lineNumber), function: function)
            }
            state = members["state"]
        }
    }

    /// The seqs to leave out.
    public var skip: [Int64]
    /// The actions to put in instead, in the order given.
    public var edit: [Edit]
    /// The state at seq 0 (the server adds it).
    public var state: JSONValue?
    /// Seq 0's time, seconds since 1970 (the server adds it): the branch's seq 0 is stamped with
    /// it, so its offsets read as the original's.
    public var at: Double?
    /// Seqs 1…n (the server adds them).
    public var steps: [Step]?
    /// The uuid of the session branched from (the server adds it).
    public var of: String?

    public init(skip: [Int64] = [], edit: [Edit] = [], state: JSONValue? = nil, at: Double? = nil,
                steps: [Step]? = nil, of: String? = nil) {
        self.skip = skip
        self.edit = edit
        self.state = state
        self.at = at
        self.steps = steps
        self.of = of
    }

    public init(members: JSONObject) throws(WireError) {
        let f = WireFields(object: members, type: Self.kind.rawValue)
        skip = []
        switch members["skip"] {
        case nil:
            break
        case .array(let items)?:
            for item in items {
                guard case .number(let n) = item, let seq = n.int64Value else { throw f.fail("skip", "an array of seqs") }
                skip.append(seq)
            }
        default:
            throw f.fail("skip", "an array of seqs")
        }
        edit = []
        switch members["edit"] {
        case nil:
            break
        case .object(let object)?:
            for (key, action) in object {
                // Canonical decimal only: "01" and "+1" would name seq 1 a second time.
                guard let seq = Int64(key), String(seq) == key else {
                    throw WireError(.badMessage, "branch: \"edit\" keys must be seqs written in plain decimal (\"1\", not \"01\" or \"+1\"); got \"\(Self.shortQuote(key))\"")
                }
                edit.append(Edit(seq: seq, action: action))
            }
        default:
            throw f.fail("edit", "an object of seq → action")
        }
        guard !skip.isEmpty || !edit.isEmpty else {
            throw WireError(.badMessage, "branch: nothing to change: give \"skip\" or \"edit\"")
        }
        state = members["state"]
        at = try Self.time(members["at"], f, "at")
        switch members["steps"] {
        case nil:
            steps = nil
        case .array(let items)?:
            var steps: [Step] = []
            steps.reserveCapacity(items.count)
            for (index, item) in items.enumerated() { steps.append(try Step(json: item, number: index + 1)) }
            self.steps = steps
        default:
            throw Self.stepsMissing
        }
        of = try f.optionalString("of")
    }

    public var members: JSONObject {
        var o: JSONObject = [:]
        if !skip.isEmpty { o["skip"] = .array(skip.map { .number(JSONNumber($0)) }) }
        if !edit.isEmpty { o["edit"] = .object(JSONObject(edit.map { (String($0.seq), $0.action) })) }
        if let state { o["state"] = state }
        if let at { o["at"] = Self.time(at) }
        if let steps { o["steps"] = .array(steps.map(\.json)) }
        if let of { o["of"] = .string(of) }
        return o
    }

    /// The recording to recompute, which the server adds; a sentence when it did not.
    public func recording() throws(WireError) -> (state: JSONValue, steps: [Step]) {
        guard let state else { throw WireError(.badMessage, "branch: \"state\" is missing") }
        guard let steps else { throw Self.stepsMissing }
        return (state, steps)
    }

    private static var stepsMissing: WireError {
        WireError(.badMessage, "branch: \"steps\" must be an array of {\"action\", \"at\", \"cause\", \"site\"}")
    }

    /// At most 32 characters of `text` for an error sentence (a key sent by a client).
    static func shortQuote(_ text: String) -> String {
        text.unicodeScalars.count <= 32 ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(32))) + "…"
    }

    /// A time on the wire: a number, or `null` for one JSON cannot hold.
    static func time(_ seconds: Double) -> JSONValue {
        JSONNumber(seconds).map(JSONValue.number) ?? .null
    }

    /// A time read back: a number, or nothing when absent or `null`.
    static func time(_ value: JSONValue?, _ f: WireFields, _ member: String) throws(WireError) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .number(let n)?: return n.doubleValue
        default: throw f.fail(member, "a number of seconds since 1970")
        }
    }
}
