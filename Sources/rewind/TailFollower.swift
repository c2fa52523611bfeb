import Foundation
import RewindJSON
import RewindWire

/// Why one connection's loop stopped.
enum TailStop: Error {
    /// The connection ended (or never came about); `connected` says whether it had opened.
    case lost(String, connected: Bool)
    /// SIGINT or SIGTERM.
    case interrupted
}

/// Which sessions `rewind tail` follows.
enum TailTarget {
    /// Every session (`--all`).
    case all
    /// One session: an id, a uuid (prefix) or `latest`.
    case named(String)
    /// The newest live session, else the next one to start.
    case next
}

/// The follower of `rewind tail`: prints each followed session's events once, in seq order,
/// across lags and reconnects. Live pushes print as they come; whenever a push is not the next
/// seq (after subscribing, a `lagged`, a reconnect), the missing seqs are read with `events`
/// pages first, so nothing is printed twice and nothing is skipped.
final class TailFollower {
    struct Followed {
        var uuid: String
        var id: Int64
        var app: String
        /// The last seq printed (or skipped by `--type`); -1 before seq 0.
        var last: Int64
        /// The state after `last`, kept for `--diff`.
        var state: JSONValue?
    }

    let target: TailTarget
    let typeGlob: String?
    let diff: Bool
    let output: TailOutput
    let mailbox: Mailbox
    private(set) var followed: [String: Followed] = [:]
    /// App names of the sessions seen, by uuid (for `--all` prefixes).
    private var apps: [String: String] = [:]
    private var link: InspectorLink!
    private var pending: [JSONObject] = []
    private var nextID = 0
    /// Whether a session is chosen (false while waiting for one to start).
    private var chosen = false
    private var firstConnection = true
    /// Until when the log is read again whenever no message comes for a moment.
    private var recheckUntil: Date?
    /// Live events that arrived ahead of a gap, by session and seq.
    private var held: [String: [Int64: TailEvent]] = [:]
    /// When each session's log was last read.
    private var lastCatchUp: [String: Date] = [:]

    init(target: TailTarget, typeGlob: String?, diff: Bool, output: TailOutput, mailbox: Mailbox) {
        self.target = target
        self.typeGlob = typeGlob
        self.diff = diff
        self.output = output
        self.mailbox = mailbox
    }

    /// Follows over `link` until the connection ends (throws ``TailStop``) or a signal.
    func follow(over link: InspectorLink) throws {
        self.link = link
        pending.removeAll()
        defer { firstConnection = false }
        let sessions = try listSessions()
        if !firstConnection { writeStandardError("rewind tail: reconnected; reading what was missed from the log") }
        for session in sessions { apps[session.uuid] = session.app }
        try choose(from: sessions)
        while true {
            if let message = try nextMessage() {
                try handle(message)
            } else if !held.isEmpty || (recheckUntil.map { Date() < $0 } ?? false) {
                // Events accepted just before a subscription are pushed to nobody and reach the
                // log ~20 ms later: look again for a moment after each catch-up.
                for uuid in followed.keys.sorted() { try catchUp(uuid, extendRecheck: false) }
            } else {
                recheckUntil = nil
            }
        }
    }

    // MARK: choosing sessions

    private func choose(from sessions: [WireSession]) throws {
        switch target {
        case .all:
            for session in sessions where followed[session.uuid] == nil {
                // At start, only what comes next; sessions that began while disconnected from 0.
                followed[session.uuid] = Followed(uuid: session.uuid, id: session.id, app: session.app,
                                                  last: firstConnection ? (session.lastSeq ?? -1) : -1)
            }
            chosen = true
            _ = try request(.subscribe(id: nil, session: "*"))
            if firstConnection { writeStandardError("rewind tail: following every session") }
            for uuid in followed.keys.sorted() { try catchUp(uuid) }
        case .named, .next:
            if !chosen {
                guard let session = try pick(from: sessions) else {
                    writeStandardError(waitingMessage)
                    return
                }
                startFollowing(session, fromStart: false)
            }
            for uuid in followed.keys {
                _ = try request(.subscribe(id: nil, session: uuid))
                try catchUp(uuid)
            }
        }
    }

    private var waitingMessage: String {
        if case .named(let name) = target, name != "latest" { return "rewind tail: waiting for session \(name) to start" }
        return "rewind tail: waiting for a session to start"
    }

    /// The session the target names among `sessions`, `nil` to wait for it.
    private func pick(from sessions: [WireSession]) throws -> WireSession? {
        switch target {
        case .all:
            return nil
        case .next:
            return sessions.filter(\.live).max { $0.id < $1.id }
        case .named(let name):
            if name == "latest" { return sessions.max { $0.id < $1.id } }
            if let id = Int64(name) {
                if let session = sessions.first(where: { $0.id == id }) { return session }
                // Ids are the server's to give: ask it, and let it say there is no such session.
                _ = try request(.subscribe(id: nil, session: name))
                throw CLIError("the server has no session \(name)", code: 2)
            }
            let matches = sessions.filter { $0.uuid.lowercased().hasPrefix(name.lowercased()) }
            if matches.count > 1 {
                throw CLIError("'\(name)' is the start of \(matches.count) session uuids; give more of it", code: 2)
            }
            if let match = matches.first { return match }
            guard name.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
                _ = try request(.subscribe(id: nil, session: name))
                throw CLIError("the server has no session \(name)", code: 2)
            }
            return nil
        }
    }

    /// Whether a session that just started or resumed is the one being waited for.
    private func isAwaited(_ session: WireSession) -> Bool {
        switch target {
        case .all: false
        case .next: true
        case .named(let name):
            name == "latest" || session.uuid.lowercased().hasPrefix(name.lowercased()) || Int64(name) == session.id
        }
    }

    private func startFollowing(_ session: WireSession, fromStart: Bool) {
        chosen = true
        followed[session.uuid] = Followed(uuid: session.uuid, id: session.id, app: session.app,
                                          last: fromStart ? -1 : (session.lastSeq ?? -1))
    }

    // MARK: messages

    private func handle(_ message: JSONObject) throws {
        guard let push = try? InspectorPush(json: .object(message)) else { return }
        switch push {
        case .event:
            guard let tail = TailEvent(push: message) else { return }
            if case .all = target, followed[tail.session] == nil {
                followed[tail.session] = Followed(uuid: tail.session, id: tail.sessionID, app: apps[tail.session] ?? "?", last: -1)
            }
            try take(tail)
        case .session(let change, let session):
            apps[session.uuid] = session.app
            guard change != .ended else { return }
            if !chosen, isAwaited(session) {
                writeStandardError("rewind tail: following session \(session.uuid) (\(session.app))")
                startFollowing(session, fromStart: change == .started)
                _ = try request(.subscribe(id: nil, session: session.uuid))
                try catchUp(session.uuid)
            }
        case .lagged:
            writeStandardError("rewind tail: fell behind the server, which dropped live events; reading them from the log")
            for uuid in followed.keys.sorted() { try catchUp(uuid) }
        }
    }

    /// Prints a live event if it is the next one; reads the log first when some are missing.
    private func take(_ tail: TailEvent) throws {
        let uuid = tail.session
        guard let current = followed[uuid] else { return }
        let seq = tail.event.seq
        if seq <= current.last { return }
        if seq == current.last + 1 {
            emit(tail)
            releaseHeld(uuid)
            return
        }
        // Seqs are missing. The log may not hold them yet (pushes go out before the commit, and a
        // busy server commits late): keep this one, read the log now (at most ten times a
        // second), and again whenever the connection is quiet, until the gap is filled.
        held[uuid, default: [:]][seq] = tail
        if Date().timeIntervalSince(lastCatchUp[uuid] ?? .distantPast) > 0.1 { try catchUp(uuid) }
    }

    /// Prints the held live events that now follow the last seq printed, and forgets older ones.
    private func releaseHeld(_ uuid: String) {
        while let last = followed[uuid]?.last, let next = held[uuid]?.removeValue(forKey: last + 1) { emit(next) }
        if let last = followed[uuid]?.last { held[uuid] = held[uuid]?.filter { $0.key > last } }
        if held[uuid]?.isEmpty == true { held[uuid] = nil }
    }

    /// Reads every stored event after the last one printed, in pages.
    private func catchUp(_ uuid: String, extendRecheck: Bool = true) throws {
        guard let current = followed[uuid] else { return }
        if extendRecheck { recheckUntil = Date(timeIntervalSinceNow: 2) }
        if diff, current.state == nil, current.last >= 0 {
            let reply = try request(.state(id: nil, session: uuid, seq: current.last, path: nil))
            followed[uuid]?.state = reply["value"]
        }
        var from: Int64? = current.last + 1
        while let start = from {
            let reply = try request(.events(id: nil, session: uuid, from: start, limit: 1_000, typeGlob: nil, text: nil))
            guard case .array(let events)? = reply["events"] else { return }
            for case .object(let object) in events {
                guard let tail = TailEvent(stored: object, session: uuid, sessionID: current.id) else { continue }
                if let now = followed[uuid], tail.event.seq == now.last + 1 { emit(tail) }
            }
            from = reply.int64("next")
        }
        lastCatchUp[uuid] = Date()
        releaseHeld(uuid)
    }

    /// Prints `tail` (unless `--type` leaves it out) and moves the session past it.
    private func emit(_ tail: TailEvent) {
        guard var current = followed[tail.session] else { return }
        var changes: [JSONChange]?
        if diff {
            let event = tail.event
            var after: JSONValue?
            if let keyframe = event.keyframe {
                after = keyframe
            } else if let state = current.state, let patch = event.patch {
                after = try? JSONPatch(json: patch).apply(to: state)
            }
            if let before = current.state, let after {
                changes = JSONDiff(from: before, to: after).changes
            } else {
                changes = []
            }
            current.state = after
        }
        current.last = tail.event.seq
        followed[tail.session] = current
        if let typeGlob, !globMatches(typeGlob, tail.actionType) { return }
        writeStandardOutput(output.render(tail, app: current.app, changes: changes))
    }

    // MARK: requests

    private func listSessions() throws -> [WireSession] {
        let reply = try request(.sessions(id: nil))
        guard case .array(let list)? = reply["sessions"] else { return [] }
        return list.compactMap { try? WireSession(json: $0) }
    }

    /// Sends `request` with a fresh id and waits for its reply; pushes that arrive meanwhile are
    /// kept for the main loop. An `error` reply becomes a ``CLIError``.
    private func request(_ request: InspectorRequest) throws -> JSONObject {
        nextID += 1
        let id = JSONValue.number(JSONNumber(nextID))
        link.send(request.with(id: id))
        while true {
            guard let message = try receive(until: nil) else { continue }
            guard message["id"] == id else {
                if message["id"] == nil { pending.append(message) }
                continue
            }
            if message.string("type") == "error" {
                let text = message.string("message") ?? "the server refused the request"
                throw CLIError("\(text) (server error \(message.string("code") ?? "unknown"))", code: 2)
            }
            return message
        }
    }

    /// The next push; `nil` after a short quiet spell while a recheck is due.
    private func nextMessage() throws -> JSONObject? {
        if !pending.isEmpty { return pending.removeFirst() }
        return try receive(until: recheckUntil == nil && held.isEmpty ? nil : Date(timeIntervalSinceNow: 0.2))
    }

    private func receive(until deadline: Date?) throws -> JSONObject? {
        while true {
            switch mailbox.next(until: deadline) {
            case .message(let object, let generation)? where generation == link.generation:
                return object
            case .lost(let reason, let generation, let connected)? where generation == link.generation:
                throw TailStop.lost(reason, connected: connected)
            case .interrupted?:
                throw TailStop.interrupted
            case nil:
                return nil
            default:
                continue  // something from an earlier connection
            }
        }
    }
}

extension InspectorRequest {
    /// The request with `id` in place of its own.
    func with(id: JSONValue) -> InspectorRequest {
        switch self {
        case .sessions: return .sessions(id: id)
        case .subscribe(_, let session): return .subscribe(id: id, session: session)
        case .unsubscribe(_, let session): return .unsubscribe(id: id, session: session)
        case .events(_, let session, let from, let limit, let glob, let text):
            return .events(id: id, session: session, from: from, limit: limit, typeGlob: glob, text: text)
        case .state(_, let session, let seq, let path): return .state(id: id, session: session, seq: seq, path: path)
        case .diff(_, let session, let from, let to): return .diff(id: id, session: session, from: from, to: to)
        case .blame(_, let session, let path): return .blame(id: id, session: session, path: path)
        case .command(let command):
            var copy = command
            copy.id = id
            return .command(copy)
        }
    }
}
