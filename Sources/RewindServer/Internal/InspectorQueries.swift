import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWebSocket
import RewindWire

/// Answers inspectors' requests off the service thread, on reader connections of its own.
/// Requests of one inspector are handled in order, one at a time; inspectors with requests
/// waiting take turns (one request per turn, round-robin), and the reader pool serves them in
/// turn too, so one inspector's pipelined requests keep another waiting for about one request.
///
/// Bounds: at most ``Limits/maxInFlight`` requests of one inspector wait or run (more are
/// refused at once with `too-many-requests`); each query has a time budget; a reply that would
/// not fit the connection's output queue becomes `reply-too-large` (an `events` page is cut to
/// fit instead); an inspector that does not read its replies is closed with 1008.
final class InspectorQueries: @unchecked Sendable {
    struct Limits {
        /// The largest reply one connection can queue (its output queue's byte bound).
        var maxReplyBytes: Int
        var maxInFlight = 16
        var queryTimeBudget: Double = 5
    }

    private struct Inspector {
        let connection: WebSocketConnection
        /// Accepted requests not yet started, oldest first.
        var pending: [[UInt8]] = []
        /// One of its requests is being handled.
        var busy = false
        var errors = 0
        /// Requests counted against ``Limits/maxInFlight``: accepted, their replies not yet made.
        var inFlight = 0
        /// Requests accepted and not yet done with (their reply queued, or handed on).
        var unsettled = 0
    }

    /// The inspectors and whose turn is next.
    private struct Turns {
        var inspectors: [UInt64: Inspector] = [:]
        /// Inspectors with a request pending and none running, in the order they take turns.
        var ready: [UInt64] = []
        var readyHead = 0

        mutating func popReady() -> UInt64? {
            guard readyHead < ready.count else { return nil }
            let id = ready[readyHead]
            readyHead += 1
            if readyHead > 64, readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
            return id
        }
    }

    private let readers: ReaderPool
    private let hub: InspectorHub
    private let relay: CommandRelay
    private let ingest: AppIngest
    private let readOnly: Bool
    private let maxErrors: Int
    private let limits: Limits
    private let workers = DispatchQueue(label: "rewind.server.queries", attributes: .concurrent)
    /// Answers requests refused for being too many, off the service thread and off the workers.
    private let refusals = DispatchQueue(label: "rewind.server.refusals")
    private let perInspector = Locked(Turns())

    init(logPath: String, hub: InspectorHub, relay: CommandRelay, ingest: AppIngest, readOnly: Bool, maxErrors: Int,
         limits: Limits) throws(LogError) {
        // Three readers, at most two of them scanning: a quick query never waits behind scans.
        readers = try ReaderPool(path: logPath, count: 3, maxScans: 2)
        self.hub = hub
        self.relay = relay
        self.ingest = ingest
        self.readOnly = readOnly
        self.maxErrors = maxErrors
        self.limits = limits
    }

    func receive(_ bytes: [UInt8], from connection: WebSocketConnection) {
        let maxInFlight = limits.maxInFlight
        let accepted = perInspector.withLock { turns -> Bool? in
            var entry = turns.inspectors[connection.id] ?? Inspector(connection: connection)
            guard entry.inFlight < maxInFlight else { return nil }
            entry.inFlight += 1
            entry.unsettled += 1
            entry.pending.append(bytes)
            // Not running and not queued for a turn: it joins the end of the line.
            let joins = !entry.busy && entry.pending.count == 1
            if joins { turns.ready.append(connection.id) }
            turns.inspectors[connection.id] = entry
            return joins
        }
        guard let accepted else {
            refusals.async {
                let id = (try? JSONValue(parsing: bytes))?["id"]
                let error = WireError(.tooManyRequests, "\(maxInFlight) requests of this inspector are already waiting for replies; send more as replies arrive", id: id)
                self.deliver(error.json.serializedBytes(.compact), to: connection)
            }
            return
        }
        if accepted { workers.async { self.takeTurn() } }
    }

    /// Handles one request of the inspector whose turn it is; one turn is queued for every entry
    /// in the line, so every accepted request is handled.
    private func takeTurn() {
        let next = perInspector.withLock { turns -> (WebSocketConnection, [UInt8])? in
            guard let id = turns.popReady(), var entry = turns.inspectors[id], !entry.pending.isEmpty else { return nil }
            entry.busy = true
            let bytes = entry.pending.removeFirst()
            turns.inspectors[id] = entry
            return (entry.connection, bytes)
        }
        guard let (connection, bytes) = next else { return }
        let outcome = handle(bytes, from: connection)
        // No longer in flight before its reply goes out: an inspector that sends its next request
        // as each reply arrives never finds the server still counting the answered one.
        let again = perInspector.withLock { turns -> Bool in
            guard var entry = turns.inspectors[connection.id] else { return false }
            entry.busy = false
            entry.inFlight -= 1
            let again = !entry.pending.isEmpty
            if again { turns.ready.append(connection.id) }
            turns.inspectors[connection.id] = entry
            return again
        }
        if again { workers.async { self.takeTurn() } }
        if let reply = outcome.reply { deliver(reply, to: connection) }
        if let reason = outcome.closeReason { connection.close(code: .policyViolation, reason: reason) }
        perInspector.withLock { $0.inspectors[connection.id]?.unsettled -= 1 }
    }

    func closed(_ connection: WebSocketConnection) {
        perInspector.withLock { _ = $0.inspectors.removeValue(forKey: connection.id) }
    }

    /// Requests of `connection` accepted and not yet done with: their replies queued on the
    /// connection, or handed on (subscriptions, commands).
    func unsettled(for connection: WebSocketConnection) -> Int {
        perInspector.withLock { $0.inspectors[connection.id]?.unsettled ?? 0 }
    }

    /// Queues `bytes`; an inspector whose queue is full does not read its replies, and dropping
    /// one silently would leave its request unanswered, so it is closed instead.
    private func deliver(_ bytes: [UInt8], to connection: WebSocketConnection) {
        if connection.send(textBytes: bytes) == .queueFull {
            connection.close(code: .policyViolation,
                             reason: "this inspector does not read its replies (\(connection.queuedByteCount) bytes wait)")
        }
    }

    /// What handling one request leads to: a reply to send now (none when it is sent later), and
    /// whether the connection is then closed.
    private struct Outcome {
        var reply: [UInt8]?
        var closeReason: String?
    }

    private func handle(_ bytes: [UInt8], from connection: WebSocketConnection) -> Outcome {
        do throws(WireError) {
            let request = try InspectorRequest(frame: bytes)
            var outcome = Outcome()
            if let reply = try answer(request, from: connection) {
                let text = reply.serializedBytes(.compact)
                guard text.count <= limits.maxReplyBytes else {
                    throw Self.tooLarge(request, bytes: text.count, limit: limits.maxReplyBytes)
                }
                outcome.reply = text
            }
            perInspector.withLock { $0.inspectors[connection.id]?.errors = 0 }
            return outcome
        } catch {
            let errors = perInspector.withLock { turns -> Int in
                turns.inspectors[connection.id]?.errors += 1
                return turns.inspectors[connection.id]?.errors ?? 0
            }
            return Outcome(reply: error.json.serializedBytes(.compact),
                           closeReason: errors >= maxErrors ? "\(errors) protocol errors in a row" : nil)
        }
    }

    /// The reply to send now, or `nil` when it is sent later (subscriptions, commands).
    private func answer(_ request: InspectorRequest, from connection: WebSocketConnection) throws(WireError) -> JSONValue? {
        let id = request.id
        switch request {
        case .sessions:
            let live = ingest.liveSessionIDs()
            let sessions = try read(id) { reader throws(LogError) in try reader.sessions() }
            return InspectorReplies.reply("sessions", id: id, ["sessions": .array(sessions.map { wireSession($0, live: live.contains($0.id)).json })])
        case .subscribe(_, let name), .unsubscribe(_, let name):
            let isSubscribe = request.type == "subscribe"
            let session = name == "*" ? nil : try resolve(name, id: id)
            var members: JSONObject = ["session": .string(session?.uuid ?? "*")]
            if let session { members["sessionId"] = InspectorReplies.number(session.id) }
            let reply = InspectorReplies.reply(request.type, id: id, members).serializedBytes(.compact)
            if isSubscribe {
                hub.subscribe(connection, session: session?.id, reply: reply)
            } else {
                hub.unsubscribe(connection, session: session?.id, reply: reply)
            }
            return nil
        case .events(_, let name, let from, let limit, let typeGlob, let text):
            let session = try resolve(name, id: id)
            let (events, initial) = try read(id) { reader throws(LogError) in
                let events = try reader.events(session: session.id, from: from, typeGlob: typeGlob, text: text, limit: limit)
                let initial = events.first?.seq == 0 ? try reader.keyframe(atOrBefore: 0, session: session.id)?.state : nil
                return (events, initial)
            }
            // Cut the page to fit the connection's output bound, with room for escapes: `next`
            // then points at the first event left out.
            let budget = limits.maxReplyBytes / 2
            var list: [JSONValue] = []
            var used = 0
            for event in events {
                let item = InspectorReplies.event(event, keyframe: event.seq == 0 ? initial : nil)
                used += item.measure(byteBudget: budget - used + 1).bytes
                if used > budget {
                    guard !list.isEmpty else {
                        throw WireError(.replyTooLarge, "event \(event.seq) alone is larger than this connection's reply limit of \(limits.maxReplyBytes / 2) bytes for a page; ask for the state after it with \"state\" and a \"path\"", id: id)
                    }
                    break
                }
                list.append(item)
            }
            let next: JSONValue = list.count < events.count ? InspectorReplies.number(events[list.count].seq)
                : events.count == limit ? InspectorReplies.number(events[events.count - 1].seq + 1) : .null
            return InspectorReplies.reply("events", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                             "events": .array(list), "next": next])
        case .state(_, let name, let seq, let path):
            let session = try resolve(name, id: id)
            let state = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
            var members: JSONObject = ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                       "seq": InspectorReplies.number(seq), "hash": .string(wireHash(state.hash(session.hashVersion)))]
            if let path {
                let value = path.resolve(in: state)
                members["path"] = .string(path.description)
                members["exists"] = .bool(value != nil)
                members["value"] = value ?? .null
            } else {
                members["exists"] = true
                members["value"] = state
            }
            return InspectorReplies.reply("state", id: id, members)
        case .diff(_, let name, let from, let to):
            let session = try resolve(name, id: id)
            let diff = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.diff(from: from, to: to) }
            return InspectorReplies.reply("diff", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                           "from": InspectorReplies.number(from), "to": InspectorReplies.number(to),
                                                           "patch": diff.forward.json, "inverse": diff.inverse.json])
        case .blame(_, let name, let path):
            let session = try resolve(name, id: id)
            let entries = try replay(session, id: id, scan: true) { timeline throws(ReplayError) in try timeline.blame(path: path) }
            return InspectorReplies.reply("blame", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                            "path": .string(path.description), "entries": .array(entries.map(InspectorReplies.blame))])
        case .find(let find):
            let session = try resolve(find.session, id: id)
            let condition: FindCondition
            switch find.condition {
            case .isEqual(let value): condition = .isEqual(value)
            case .isNot(let value): condition = .isNot(value)
            case .greaterThan(let bound): condition = .greaterThan(bound)
            case .lessThan(let bound): condition = .lessThan(bound)
            case .matches(let pattern):
                do { condition = .matches(try FindPattern(pattern)) } catch {
                    throw WireError(.badMessage, "find: \(error)", id: id)
                }
            case .exists: condition = .exists
            case .missing: condition = .missing
            case .changed: condition = .changed
            }
            // Stop with what was found before the query budget interrupts the read: a partial
            // answer says how far it got.
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(limits.queryTimeBudget * 900)))
            let result = try replay(session, id: id, scan: true) { timeline throws(ReplayError) in
                try timeline.find(path: find.path, condition: condition, all: find.all, first: find.first,
                                  limit: find.limit, deadline: deadline)
            }
            var members: JSONObject = ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                       "path": .string(find.path.description), "hits": .array(result.hits.map(InspectorReplies.findHit)),
                                       "scannedThrough": InspectorReplies.number(result.scannedThrough),
                                       "lastSeq": InspectorReplies.number(result.lastSeq), "complete": .bool(result.complete)]
            if let because = result.stoppedBecause { members["stoppedBecause"] = .string(because) }
            return InspectorReplies.reply("find", id: id, members)
        case .compare(_, let name, let otherName, let seq):
            let session = try resolve(name, id: id)
            let other = try resolve(otherName, id: id)
            let first = try read(id, scan: true) { reader throws(LogError) in try reader.firstDifference(between: session.id, and: other.id) }
            var members: JSONObject = ["session": .string(session.uuid), "with": .string(other.uuid),
                                       "firstDifference": first.map(InspectorReplies.number) ?? .null]
            if let seq {
                let a = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
                let b = try replay(other, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
                let diff = JSONDiff(from: a, to: b)
                members["seq"] = InspectorReplies.number(seq)
                members["patch"] = diff.forward.json
                members["inverse"] = diff.inverse.json
            }
            return InspectorReplies.reply("compare", id: id, members)
        case .command(var command):
            guard !readOnly else { throw WireError(.readOnly, "the server runs with --read-only: commands are refused", id: id) }
            let session = try resolve(command.session ?? "", id: id)
            guard let app = ingest.appConnection(for: session.id) else {
                if command.kind == .branch {
                    throw WireError(.appOffline, "no app is connected for session \(session.uuid)\(CommandRelay.branchNeedsApp)", id: id)
                }
                throw WireError(.appOffline, "no app is connected for session \(session.uuid)", id: id)
            }
            if command.kind == .branch {
                try fillBranch(&command, session: session, id: id)
            }
            if command.kind == .jump {
                var jump = try command.decode(JumpArguments.self)
                if jump.state == nil {
                    // The app shows the state whole: fill it in from the log when only seq was given.
                    guard let seq = jump.seq else { throw WireError(.badMessage, "command: a jump needs \"seq\"", id: id) }
                    jump.state = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
                    command.update(jump)
                }
            }
            relay.send(command, to: app, from: connection)
            return nil
        }
    }

    /// The most actions a branch recomputes.
    static let maxBranchActions = 20_000

    /// How many actions a branch reads at once.
    static let branchPage: Int64 = 256

    /// The most bytes a branch command carries to the app: half the app connection's output
    /// bound (16 MiB by default), so acks and other commands still fit beside it.
    static func branchByteLimit(maxReplyBytes: Int) -> Int {
        maxReplyBytes / 2
    }

    /// Checks a branch's `skip` and `edit` against the session, and gives the app what it
    /// recomputes: the state at seq 0 and its time, and every recorded step (action, time,
    /// cause, site).
    private func fillBranch(_ command: inout Command, session: SessionInfo, id: JSONValue?) throws(WireError) {
        guard let last = session.lastSeq, last >= 1 else {
            throw WireError(.badMessage, "command: session \(session.uuid) has no actions to branch from", id: id)
        }
        guard last <= Int64(Self.maxBranchActions) else {
            throw WireError(.badMessage, "command: a branch recomputes at most \(Self.maxBranchActions) actions, and session \(session.uuid) has \(last)", id: id)
        }
        var branch = try command.decode(BranchArguments.self)
        let seqs = branch.skip + branch.edit.map(\.seq)
        if let outside = seqs.first(where: { $0 < 1 || $0 > last }) {
            throw WireError(.badMessage, "command: seq \(outside) is not an action of session \(session.uuid) (1…\(last))", id: id)
        }
        // The command carries the initial state and every step to the app in one message, so it
        // is bounded as it is read: pages of actions, each measured against what is left of the
        // budget, and nothing past the first page that goes over is read.
        let budget = Self.branchByteLimit(maxReplyBytes: limits.maxReplyBytes)
        func tooLarge(_ what: String) -> WireError {
            WireError(.replyTooLarge, "command: the branch would carry \(what) to the app, over the limit of \(budget) bytes for one command; branch a shorter session, or skip and edit on a recording with smaller states and actions", id: id)
        }
        let (initial, initialAt) = try read(id, scan: true) { reader throws(LogError) in
            (try reader.keyframe(atOrBefore: 0, session: session.id)?.state, try reader.events(session: session.id, from: 0, to: 0).first?.at)
        }
        guard let initial else {
            throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
        }
        var used = initial.measure(byteBudget: budget + 1).bytes
        guard used <= budget else { throw tooLarge("an initial state of more than \(budget) bytes") }
        var steps: [BranchArguments.Step] = []
        steps.reserveCapacity(Int(last))
        var from: Int64 = 1
        while from <= last {
            let to = min(last, from + Self.branchPage - 1)
            let page = try read(id, scan: true) { reader throws(LogError) in try reader.events(session: session.id, from: from, to: to) }
            guard page.count == Int(to - from + 1) else {
                throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
            }
            for event in page {
                var step = BranchArguments.Step(action: event.action, at: event.at.timeIntervalSince1970, cause: event.cause,
                                                site: event.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) })
                // Where a replay set the state (its mark), the app sets the same state: the step
                // carries it.
                if event.actionType == "@@rewind/replayed" {
                    let seq = event.seq
                    step.state = try replay(session, id: id, scan: true) { timeline throws(ReplayError) in try timeline.state(at: seq) }
                }
                used += step.json.measure(byteBudget: budget - used + 1).bytes + 1
                guard used <= budget else {
                    throw tooLarge("more than \(budget) bytes (the initial state and the actions up to seq \(event.seq) of \(last) alone)")
                }
                steps.append(step)
            }
            from = to + 1
        }
        branch.state = initial
        // Seq 0's time: the branch's offsets then read as the original's.
        branch.at = (initialAt ?? session.startedAt).timeIntervalSince1970
        branch.steps = steps
        branch.of = session.uuid
        command.update(branch)
    }

    private func read<T>(_ id: JSONValue?, scan: Bool = false, _ body: (LogReader) throws(LogError) -> T) throws(WireError) -> T {
        do {
            let seconds = limits.queryTimeBudget
            return try readers.withReader(scan: scan) { reader in
                try reader.withTimeBudget(seconds: seconds) { () throws(LogError) in try body(reader) }
            }
        } catch let error as LogError {
            throw wireError(error, id: id)
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    private func resolve(_ name: String, id: JSONValue?) throws(WireError) -> SessionInfo {
        try read(id) { reader throws(LogError) in try reader.session(named: name) }
    }

    private func replay<T>(_ session: SessionInfo, id: JSONValue?, scan: Bool = false,
                           _ body: (Timeline) throws(ReplayError) -> T) throws(WireError) -> T {
        do {
            let seconds = limits.queryTimeBudget
            return try readers.withReader(scan: scan) { reader in
                try reader.withTimeBudget(seconds: seconds) { () throws(ReplayError) in
                    let timeline = try Timeline(reader: reader, session: session.id, options: .uncached)
                    return try body(timeline)
                }
            }
        } catch let error as ReplayError {
            switch error {
            case .seqOutOfRange:
                throw WireError(.unknownSeq, error.description, id: id)
            case .log(let log):
                throw wireError(log, id: id)
            case .brokenChain:
                throw WireError(.storage, error.description, id: id)
            }
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    private func wireError(_ error: LogError, id: JSONValue?) -> WireError {
        if error.isInterrupted {
            return WireError(.queryTimeout, "the query ran past its time budget of \(limits.queryTimeBudget.formatted()) s and was stopped; narrow it (a shorter text filter, a typeGlob, a smaller limit or range)", id: id)
        }
        switch error.kind {
        case .unknownSession, .ambiguousSession:
            return WireError(.unknownSession, error.description, id: id)
        default:
            return WireError(.storage, error.description, id: id)
        }
    }

    /// The `reply-too-large` error for `request`, saying what to ask instead.
    private static func tooLarge(_ request: InspectorRequest, bytes: Int, limit: Int) -> WireError {
        let instead: String
        switch request {
        case .state: instead = "ask for part of the state with \"path\""
        case .diff: instead = "ask for a shorter range, or compare parts with \"state\" and \"path\""
        case .blame: instead = "ask about a narrower \"path\""
        case .compare: instead = "compare parts of the states with \"state\" and \"path\""
        case .find: instead = "ask for fewer hits with \"limit\" or \"first\", or about a narrower \"path\""
        case .events: instead = "ask for a smaller \"limit\""
        default: instead = "ask for less at once"
        }
        return WireError(.replyTooLarge, "the reply would be \(bytes) bytes, over this connection's limit of \(limit) bytes; \(instead)", id: request.id)
    }
}
