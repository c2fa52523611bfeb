import RewindJSON
import RewindLog
import RewindWire

/// A branch command on its way to the app: its `skip` and `edit` checked against the session,
/// and what the app recomputes read from the log: the state at seq 0 and its time, and every
/// recorded step (action, time, cause, site).
struct BranchCommand {
    /// The most actions a branch recomputes.
    static let maxActions = 20_000
    /// How many actions a branch reads at once.
    static let page: Int64 = 256

    /// The most bytes a branch command carries to the app: half the app connection's output
    /// bound (16 MiB by default), so acks and other commands still fit beside it.
    static func byteLimit(maxReplyBytes: Int) -> Int {
        maxReplyBytes / 2
    }

    /// At most 32 characters of `text` for an error sentence (a key or name sent by a client).
    static func shortQuote(_ text: String) -> String {
        text.unicodeScalars.count <= 32 ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(32))) + "…"
    }

    let session: SessionInfo
    let id: JSONValue?
    let context: QueryContext

    /// The recording the app recomputes.
    private struct Recording {
        var initial: JSONValue
        var initialAt: JSONValue
        var steps: [JSONValue]
    }

    /// Checks `command` against the session and fills in what the app recomputes.
    func fill(_ command: inout Command) throws(WireError) {
        guard let last = session.lastSeq, last >= 1 else {
            throw WireError(.badMessage, "command: session \(session.uuid) has no actions to branch from", id: id)
        }
        guard last <= Int64(Self.maxActions) else {
            throw WireError(.badMessage, "command: a branch recomputes at most \(Self.maxActions) actions, and session \(session.uuid) has \(last)", id: id)
        }
        let seqs = try Self.seqs(in: command.arguments, id: id)
        if let outside = seqs.first(where: { $0 < 1 || $0 > last }) {
            throw WireError(.badMessage, "command: seq \(outside) is not an action of session \(session.uuid) (1…\(last))", id: id)
        }
        let recording = try read(through: last)
        Self.write(recording, of: session, into: &command.arguments)
    }

    /// The seqs a branch leaves out (`skip`) or replaces (`edit`, seq → action), as the
    /// inspector sent them; at least one.
    static func seqs(in arguments: JSONObject, id: JSONValue?) throws(WireError) -> [Int64] {
        var seqs: [Int64] = []
        if let skip = arguments["skip"] {
            guard case .array(let items) = skip else { throw WireError(.badMessage, "command: \"skip\" must be an array of seqs", id: id) }
            for item in items {
                guard case .number(let n) = item, let seq = n.int64Value else {
                    throw WireError(.badMessage, "command: \"skip\" must be an array of seqs", id: id)
                }
                seqs.append(seq)
            }
        }
        if let edit = arguments["edit"] {
            guard case .object(let object) = edit else {
                throw WireError(.badMessage, "command: \"edit\" must be an object of seq → action", id: id)
            }
            for key in object.keys {
                // Canonical decimal only: "01" and "+1" would name seq 1 a second time.
                guard let seq = Int64(key), String(seq) == key else {
                    throw WireError(.badMessage, "command: \"edit\" keys must be seqs written in plain decimal (\"1\", not \"01\" or \"+1\"); got \"\(shortQuote(key))\"", id: id)
                }
                seqs.append(seq)
            }
        }
        guard !seqs.isEmpty else { throw WireError(.badMessage, "command: a branch needs \"skip\" or \"edit\"", id: id) }
        return seqs
    }

    /// Puts the recording into the command's arguments, where the app reads it.
    private static func write(_ recording: Recording, of session: SessionInfo, into arguments: inout JSONObject) {
        arguments["state"] = recording.initial
        // Seq 0's time: the branch's offsets then read as the original's.
        arguments["at"] = recording.initialAt
        arguments["steps"] = .array(recording.steps)
        arguments["of"] = .string(session.uuid)
    }

    /// Reads the recording through seq `last`. The command carries the initial state and every
    /// step to the app in one message, so it is bounded as it is read: pages of actions, each
    /// measured against what is left of the budget, and nothing past the first page that goes
    /// over is read.
    private func read(through last: Int64) throws(WireError) -> Recording {
        let budget = Self.byteLimit(maxReplyBytes: context.limits.maxReplyBytes)
        func tooLarge(_ what: String) -> WireError {
            WireError(.replyTooLarge, "command: the branch would carry \(what) to the app, over the limit of \(budget) bytes for one command; branch a shorter session, or skip and edit on a recording with smaller states and actions", id: id)
        }
        let session = self.session
        let (initial, initialAt) = try context.read(id, scan: true) { reader throws(LogError) in
            (try reader.keyframe(atOrBefore: 0, session: session.id)?.state, try reader.events(session: session.id, from: 0, to: 0).first?.at)
        }
        guard let initial else {
            throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
        }
        var used = initial.measure(byteBudget: budget + 1).bytes
        guard used <= budget else { throw tooLarge("an initial state of more than \(budget) bytes") }
        var steps: [JSONValue] = []
        steps.reserveCapacity(Int(last))
        var from: Int64 = 1
        while from <= last {
            let to = min(last, from + Self.page - 1)
            let page = try context.read(id, scan: true) { reader throws(LogError) in try reader.events(session: session.id, from: from, to: to) }
            guard page.count == Int(to - from + 1) else {
                throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
            }
            for event in page {
                let value = try step(event)
                used += value.measure(byteBudget: budget - used + 1).bytes + 1
                guard used <= budget else {
                    throw tooLarge("more than \(budget) bytes (the initial state and the actions up to seq \(event.seq) of \(last) alone)")
                }
                steps.append(value)
            }
            from = to + 1
        }
        return Recording(initial: initial, initialAt: InspectorReplies.time(initialAt ?? session.startedAt), steps: steps)
    }

    /// One recorded step as the app replays it.
    private func step(_ event: LogEvent) throws(WireError) -> JSONValue {
        var step: JSONObject = ["action": event.action, "at": InspectorReplies.time(event.at)]
        if let cause = event.cause { step["cause"] = InspectorReplies.number(cause) }
        if let site = event.site {
            step["site"] = ["file": .string(site.file), "line": InspectorReplies.number(Int64(site.line)), "function": .string(site.function)]
        }
        // Where a replay set the state (its mark), the app sets the same state: the step
        // carries it.
        if event.actionType == "@@rewind/replayed" {
            step["state"] = try context.state(at: event.seq, of: session, id: id, scan: true)
        }
        return .object(step)
    }
}
