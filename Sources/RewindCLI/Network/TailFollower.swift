import Foundation
import RewindJSON
import RewindWire

/// Why one connection's loop stopped.
enum TailStop: Error {
    /// The connection ended (or never came about); `connected` says whether it had opened.
    case lost(String, connected: Bool)
    /// SIGINT or SIGTERM.
    case interrupted
    /// The one session followed has ended (and `--wait` was not given): its events are printed.
    case finished
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
    /// `--wait`: a followed session that has ended is waited on (for its app to resume it)
    /// instead of ending tail.
    let waitsForResume: Bool
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
    /// Until when each session's log is read again whenever no message comes for a moment.
    private var recheckUntil: [String: Date] = [:]
    /// `--all`: sessions that ended, printed up to their end and then dropped (never taken up again
    /// from a late push).
    private var ended: Set<String> = []
    /// `--all`: ended sessions still waiting for their last events to reach the log.
    private var ending: Set<String> = []
    /// Whether the "changes unknown" warning was printed (it is said once per run).
    private var warnedUnknownChanges = false
    /// Live events that arrived ahead of a gap, by session and seq.
    private var held: [String: [Int64: TailEvent]] = [:]
    /// When each session's log was last read.
    private var lastCatchUp: [String: Date] = [:]

    init(target: TailTarget, typeGlob: String?, diff: Bool, output: TailOutput, mailbox: Mailbox, waitsForResume: Bool = false) {
        self.target = target
        self.waitsForResume = waitsForResume
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
            } else {
                // Events accepted just before a subscription are pushed to nobody and reach the
                // log ~20 ms later: look again for a moment after a session's catch-up, and only
                // at the sessions that were caught up (or wait for a gap to fill).
                let now = Date()
                let due = followed.keys.filter { held[$0] != nil || (recheckUntil[$0].map { now < $0 } ?? false) }
                for uuid in due.sorted() { try catchUp(uuid, extendRecheck: false) }
                recheckUntil = recheckUntil.filter { now < $0.value }
                dropEnded()
                try finishIfDone()
            }
        }
    }

    // MARK: choosing sessions

    private func choose(from sessions: [WireSession]) throws {
        switch target {
        case .all:
            // Live sessions only: an ended one has nothing more to say. At start, only what comes
            // next; sessions that began while disconnected from 0.
            for session in sessions where session.live && followed[session.uuid] == nil && !ended.contains(session.uuid) {
                followed[session.uuid] = Followed(uuid: session.uuid, id: session.id, app: session.app,
                                                  last: firstConnection ? (session.lastSeq ?? -1) : -1)
            }
            chosen = true
            _ = try request(.subscribe(id: nil, session: "*"))
            if firstConnection {
                writeStandardError("rewind tail: following every session: \(followed.count) live now, new ones as they start")
            }
            for uuid in followed.keys.sorted() { try catchUp(uuid) }
            // Those that ended while disconnected are printed to their end, then dropped.
            for session in sessions where !session.live && followed[session.uuid] != nil { markEnded(session.uuid) }
            dropEnded()
        case .named, .next:
            if !chosen {
                guard let session = try pick(from: sessions) else {
                    writeStandardError(waitingMessage)
                    return
                }
                if let endedAt = session.endedAt {
                    // Nothing more will come unless its app resumes it: say so rather than wait
                    // silently (for ever, without --wait).
                    let when = OutputFormat.time(Date(timeIntervalSince1970: endedAt))
                    let ended = "rewind tail: session \(session.uuid) (\(session.app)) ended at \(when), at seq \(session.lastSeq ?? -1)"
                    guard waitsForResume else {
                        writeStandardError(ended + "; nothing more will come (--wait waits for its app to resume it)")
                        throw TailStop.finished
                    }
                    startFollowing(session, fromStart: false)
                    _ = try request(.subscribe(id: nil, session: session.uuid))
                    writeStandardError(ended + "; waiting for its app to resume it")
                } else {
                    // Said at once, not only when tail had to wait: nothing may print until the
                    // app's next action.
                    let state = session.live ? "live" : "interrupted (no app holds it now)"
                    writeStandardError("rewind tail: following session \(session.uuid) (\(session.app)), \(state), at seq \(session.lastSeq ?? -1)")
                    startFollowing(session, fromStart: false)
                }
            }
            for uuid in followed.keys {
                _ = try request(.subscribe(id: nil, session: uuid))
                try catchUp(uuid)
            }
            // It ended while tail was away: print what is left, then stop.
            for session in sessions where session.endedAt != nil && followed[session.uuid] != nil && !waitsForResume {
                markEnded(session.uuid)
            }
            dropEnded()
            try finishIfDone()
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
            // A branch is live only while its app records it: never the session to follow.
            return sessions.filter { $0.live && !$0.isBranch }.max { $0.id < $1.id }
        case .named(let name):
            // As the log's `latest`: the newest session that is neither a branch nor a replay.
            if name == "latest" { return sessions.filter { $0.replayOf == nil }.max { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) } }
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
        case .next: !session.isBranch
        case .named(let name):
            (name == "latest" && session.replayOf == nil) || session.uuid.lowercased().hasPrefix(name.lowercased()) || Int64(name) == session.id
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
            if case .all = target, followed[tail.session] == nil, !ended.contains(tail.session) {
                // An event of a session whose `started` push has not come (or was missed).
                followed[tail.session] = Followed(uuid: tail.session, id: tail.sessionID, app: apps[tail.session] ?? "?", last: -1)
            }
            try take(tail)
        case .session(let change, let session):
            apps[session.uuid] = session.app
            if case .all = target {
                try followAll(change, session)
                return
            }
            if change == .ended {
                // An app that only went away (no `end`: endedAt unset) may come back: follow on.
                guard followed[session.uuid] != nil, !waitsForResume, session.endedAt != nil else { return }
                // The session followed ended: print its last events, then stop.
                try catchUp(session.uuid)
                markEnded(session.uuid)
                dropEnded()
                try finishIfDone()
                return
            }
            if ending.contains(session.uuid) {
                // It resumed before tail let go of it: follow on.
                ended.remove(session.uuid)
                ending.remove(session.uuid)
            }
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

    /// `--all`: takes up a session that starts or resumes; prints an ended one to its end and drops it.
    private func followAll(_ change: InspectorPush.SessionChange, _ session: WireSession) throws {
        let uuid = session.uuid
        if change == .ended {
            guard followed[uuid] != nil else { return }
            try catchUp(uuid)
            markEnded(uuid)
            dropEnded()
            return
        }
        // A session that resumes after it ended is followed again from its next event.
        ended.remove(uuid)
        ending.remove(uuid)
        guard followed[uuid] == nil else { return }
        followed[uuid] = Followed(uuid: uuid, id: session.id, app: session.app,
                                  last: change == .started ? -1 : (session.lastSeq ?? -1))
        try catchUp(uuid)
    }

    /// One session followed (not `--all`), and it has ended and been let go: tail is done.
    private func finishIfDone() throws {
        if case .all = target { return }
        if chosen, followed.isEmpty, !ended.isEmpty { throw TailStop.finished }
    }

    private func markEnded(_ uuid: String) {
        ended.insert(uuid)
        ending.insert(uuid)
    }

    /// Stops following the ended sessions whose events are all printed (or whose last wait for
    /// the log is over).
    private func dropEnded() {
        let now = Date()
        for uuid in ending.sorted() where held[uuid] == nil || !(recheckUntil[uuid].map { now < $0 } ?? false) {
            ending.remove(uuid)
            guard let session = followed.removeValue(forKey: uuid) else { continue }
            held[uuid] = nil
            recheckUntil[uuid] = nil
            lastCatchUp[uuid] = nil
            writeStandardError("rewind tail: session \(uuid) (\(session.app)) ended; no longer following it")
        }
    }

    /// Prints a live event if it is the next one; reads the log first when some are missing.
    private func take(_ tail: TailEvent) throws {
        let uuid = tail.session
        guard let current = followed[uuid] else { return }
        let seq = tail.event.seq
        if seq <= current.last { return }
        if seq == current.last + 1 {
            try emit(tail)
            try releaseHeld(uuid)
            return
        }
        // Seqs are missing. The log may not hold them yet (pushes go out before the commit, and a
        // busy server commits late): keep this one, read the log now (at most ten times a
        // second), and again whenever the connection is quiet, until the gap is filled.
        held[uuid, default: [:]][seq] = tail
        if Date().timeIntervalSince(lastCatchUp[uuid] ?? .distantPast) > 0.1 { try catchUp(uuid) }
    }

    /// Prints the held live events that now follow the last seq printed, and forgets older ones.
    private func releaseHeld(_ uuid: String) throws {
        while let last = followed[uuid]?.last, let next = held[uuid]?.removeValue(forKey: last + 1) { try emit(next) }
        if let last = followed[uuid]?.last { held[uuid] = held[uuid]?.filter { $0.key > last } }
        if held[uuid]?.isEmpty == true { held[uuid] = nil }
    }

    /// Reads every stored event after the last one printed, in pages.
    private func catchUp(_ uuid: String, extendRecheck: Bool = true) throws {
        guard let current = followed[uuid] else { return }
        if extendRecheck { recheckUntil[uuid] = Date(timeIntervalSinceNow: 2) }
        if diff, current.state == nil, current.last >= 0 {
            followed[uuid]?.state = try fetchState(uuid, seq: current.last)
        }
        var from: Int64? = current.last + 1
        while let start = from {
            let reply = try request(.events(id: nil, session: uuid, from: start, limit: 1_000, typeGlob: nil, text: nil))
            guard case .array(let events)? = reply["events"] else { return }
            for case .object(let object) in events {
                guard let tail = TailEvent(stored: object, session: uuid, sessionID: current.id) else { continue }
                if let now = followed[uuid], tail.event.seq == now.last + 1 { try emit(tail) }
            }
            from = reply.int64("next")
        }
        lastCatchUp[uuid] = Date()
        try releaseHeld(uuid)
    }

    /// Prints `tail` (unless `--type` leaves it out) and moves the session past it.
    private func emit(_ tail: TailEvent) throws {
        guard var current = followed[tail.session] else { return }
        var changes = TailChanges.notAsked
        if diff {
            let event = tail.event
            var after: JSONValue?
            if let keyframe = event.keyframe {
                after = keyframe
            } else if let state = current.state, let patch = event.patch,
                      let applied = try? JSONPatch(json: patch).apply(to: state) {
                after = applied
            } else {
                // The patch does not apply to the state kept here (or none is kept): the
                // server's state for this seq puts tail back on track for the events after it.
                after = try fetchState(tail.session, seq: event.seq)
            }
            if event.seq == 0, event.keyframe != nil {
                changes = .known([])
            } else if let before = current.state, let after {
                changes = .known(JSONDiff(from: before, to: after).changes)
            } else {
                changes = .unknown
            }
            current.state = after
        }
        current.last = tail.event.seq
        followed[tail.session] = current
        if let typeGlob, !globMatches(typeGlob, tail.actionType) { return }
        writeStandardOutput(output.render(tail, app: current.app, changes: changes))
    }

    // MARK: requests

    /// The server's state after `seq` of `uuid`; `nil` (said on stderr once) when it refuses.
    private func fetchState(_ uuid: String, seq: Int64) throws -> JSONValue? {
        do {
            return try request(.state(id: nil, session: uuid, seq: seq, path: nil))["value"]
        } catch let error as CLIError {
            if !warnedUnknownChanges {
                warnedUnknownChanges = true
                writeStandardError("rewind tail: cannot rebuild the state of session \(uuid) at seq \(seq) (\(error.message)); changes are shown as unknown until it can")
            }
            return nil
        }
    }

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
        return try receive(until: recheckUntil.isEmpty && held.isEmpty && ending.isEmpty ? nil : Date(timeIntervalSinceNow: 0.2))
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
