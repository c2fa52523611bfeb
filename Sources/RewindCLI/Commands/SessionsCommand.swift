import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindWire

struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions recorded in the log.",
        discussion: """
        One line per session: its id, the start of its uuid, the start of its run, the app, when \
        it started, when it ended, and how many events and keyframes it holds. A session with no \
        end is 'live' while an app holds it and 'interrupted' once none does (its app died, was \
        killed or lost the server): on a team store by the instances' leases; in a file no \
        writer holds, every such session is interrupted, and while rewind serve holds the file \
        they read 'live' here (the page and the server's sessions list tell them apart). Name a \
        session in other commands by its id, a uuid prefix or 'latest'.

        A run is one process of the app: an app with a store per screen (BLoC, MVVM) records a \
        session per store, and they share a run. Sessions are grouped by run, runs in the order \
        their first session started, and the sessions of a run oldest first.

        A branch (rewind branch, the inspector's Leave out & branch) or a replay the app recorded \
        is listed right under the session it came from, not as a store of the run, with a NOTE (a \
        column shown when some session has one): \
        'branch of 3: left out 7; edited 12' or 'replay of 3'. 'latest' never names a branch.

        Filters keep the sessions that match all of them, exactly: --app NAME, --app-version \
        VERSION, --device MODEL (the device the recorder found: iPhone15,2, MacBookPro18,3, \
        x86_64), --tag TAG (one of the tags the app gave), --since and --until TIME (when it \
        started: an ISO 8601 time such as 2025-11-20T14:00:00Z, a date such as 2025-11-20, \
        midnight UTC, or a span before now: 90s, 15m, 2h, 30d, 2w). VERSION, DEVICE and TAGS \
        columns are shown when some session has them.

        With --limit N (1 to 1000) or --after CURSOR the list is one page, newest first, and \
        not grouped; a line on stderr gives the --after that shows the next page. Sessions \
        recorded meanwhile never show up inside a later page: they are before the first.

        A session whose app crashed (Rewind's crash journal, read by the app's next run) ended with \
        the event @@rewind/crashed: a CRASH column says the signal and the action being reduced \
        ('SIGILL in add (seq 40)', 'SIGSEGV between actions'). --crashed lists only those.

        With --json, one object per line: id, uuid, app, startedAt and endedAt (seconds since \
        1970; endedAt null until it ends), live, state (live, ended or interrupted), events, keyframes, lastSeq, meta, replayOf, run, \
        branch ({of, ofId, skipped, edited} or null), note (the NOTE, or null), appVersion, \
        device, os, tags and crash (the crashed event's action: signal, number, at, reducing, \
        lost; or null). A page ends with one more line, {"next": CURSOR} ({"next": null} \
        on the last page).

        Examples:
          rewind sessions --db ./todo.db
          rewind sessions --tag "bug report" --since 7d
          rewind sessions --app Todos --limit 50 --after 1234
        """
    )

    @OptionGroup var log: LogLocation

    @Flag(help: "Only the sessions whose app crashed.")
    var crashed = false

    @Flag(help: "Print one JSON object per session, one per line.")
    var json = false

    @Option(help: ArgumentHelp("Only the sessions of this app.", valueName: "name"))
    var app: String?

    @Option(name: .customLong("app-version"), help: ArgumentHelp("Only the sessions of this version of the app.", valueName: "version"))
    var appVersion: String?

    @Option(help: ArgumentHelp("Only the sessions recorded on this device model (iPhone15,2, x86_64).", valueName: "model"))
    var device: String?

    @Option(help: ArgumentHelp("Only the sessions the app gave this tag.", valueName: "tag"))
    var tag: String?

    @Option(help: ArgumentHelp("Only the sessions that started at this time or later (2025-11-20T14:00:00Z, 2025-11-20, 2h, 30d).", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only the sessions that started before this time.", valueName: "time"))
    var until: String?

    @Option(help: ArgumentHelp("List one page of this many sessions (1 to 1000), newest first.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("List the page after the one that gave this cursor.", valueName: "cursor"))
    var after: Int64?

    /// The filter the options give; a value that can match nothing by its form is an error
    /// that says so, not an empty list. (Checked in `run`, not `validate`, so the message and
    /// exit code are the CLI's own.)
    func filter(now: Date = Date()) throws -> SessionFilter {
        for (option, value) in [("--app", app), ("--app-version", appVersion), ("--device", device), ("--tag", tag)] {
            if let value, value.isEmpty { throw CLIError("\(option) takes a non-empty value.", code: 2) }
        }
        if let tag, let problem = SessionTags.problem(with: tag) {
            throw CLIError("--tag: \(problem), so no session has it.", code: 2)
        }
        let sinceDate = try since.map { try TimeArgument.parse($0, option: "--since", now: now) }
        let untilDate = try until.map { try TimeArgument.parse($0, option: "--until", now: now) }
        if let sinceDate, let untilDate, sinceDate >= untilDate {
            throw CLIError("--since \(since ?? "") is not before --until \(until ?? ""); no session can have started between them.", code: 2)
        }
        if let limit, !(1...LogReader.maxSessionPage).contains(limit) {
            throw CLIError("--limit takes a number of sessions from 1 to \(LogReader.maxSessionPage); got \(limit).", code: 2)
        }
        if crashed, limit != nil || after != nil {
            throw CLIError("--crashed lists every crashed session at once; it takes no --limit or --after.", code: 2)
        }
        if let after, after < 1 {
            throw CLIError("--after takes the cursor a page gave (a session id, 1 or more); got \(after).", code: 2)
        }
        return SessionFilter(app: app, appVersion: appVersion, device: device, tag: tag, since: sinceDate, until: untilDate)
    }

    func run() throws {
        let filter = try filter()
        let reader = try log.openReader()
        let paged = limit != nil || after != nil
        var sessions: [SessionInfo]
        var next: Int64?
        do {
            if paged {
                let page = try reader.sessions(matching: filter, after: after, limit: limit ?? InspectorRequest.SessionPage.defaultLimit)
                sessions = page.sessions
                next = page.next
            } else {
                sessions = filter.isEmpty ? try reader.sessions() : try reader.sessions(matching: filter)
            }
        } catch {
            throw CLIError(error.description, code: 2)
        }
        if crashed { sessions = sessions.filter { $0.crash != nil } }
        // A page is listed as it comes, newest first; the whole list grouped by run.
        let listed = paged ? sessions : Self.ordered(sessions)
        var ids = Dictionary(sessions.map { ($0.uuid, $0.id) }, uniquingKeysWith: { first, _ in first })
        // A branch listed without its original (a page, a filter) still names it by its id.
        for of in Set(sessions.compactMap(\.replayOf)) where ids[of] == nil {
            if let original = try? reader.session(uuid: of) { ids[of] = original.id }
        }
        let held = Self.heldSessions(in: try log.store())
        if json {
            for session in listed { writeJSONLine(Self.json(session, ids: ids, held: held)) }
            if paged { writeJSONLine(["next": next.map(OutputFormat.number) ?? .null]) }
            return
        }
        guard !sessions.isEmpty else {
            if after != nil {
                writeStandardError("no more sessions after \(after ?? 0)")
            } else {
                writeStandardError(filter.isEmpty && !crashed ? "no sessions in \(reader.path) yet" : "no session in \(reader.path) matches")
            }
            return
        }
        writeStandardOutput(Self.table(listed, ids: ids, held: held))
        if let next { writeStandardError("more: add --after \(next) for the next page") }
    }

    /// The sessions as a table: the NOTE (a branch or a replay), VERSION, DEVICE and TAGS
    /// columns only when some session has one.
    static func table(_ sessions: [SessionInfo], ids: [String: Int64], held: Set<Int64>? = nil) -> String {
        let notes = sessions.map { Self.note($0, ids: ids) }
        let noted = notes.contains { $0 != nil }
        let versioned = sessions.contains { $0.appVersion != nil }
        let deviced = sessions.contains { $0.device != nil }
        let tagged = sessions.contains { !$0.tags.isEmpty }
        let crashes = sessions.contains { $0.crash != nil }
        var head = ["ID", "UUID", "RUN", "APP"]
        if versioned { head.append("VERSION") }
        if deviced { head.append("DEVICE") }
        head += ["STARTED", "ENDED", "EVENTS", "KEYFRAMES"]
        if tagged { head.append("TAGS") }
        if noted { head.append("NOTE") }
        if crashes { head.append("CRASH") }
        var rows = [head]
        for (session, note) in zip(sessions, notes) {
            // The table escapes every cell: the uuid, the run, the app and its meta are the app's to choose.
            var row = [String(session.id), String(session.uuid.prefix(8)), session.run.map { String($0.prefix(8)) } ?? "-", session.app]
            if versioned { row.append(session.appVersion ?? "-") }
            if deviced { row.append(session.device ?? "-") }
            row += [OutputFormat.time(session.startedAt), session.endedAt.map(OutputFormat.time) ?? Self.state(session, held: held).rawValue,
                    OutputFormat.count(session.eventCount), OutputFormat.count(session.keyframeCount)]
            if tagged { row.append(session.tags.joined(separator: ", ")) }
            if noted { row.append(note ?? "") }
            if crashes { row.append(session.crashSummary ?? "") }
            rows.append(row)
        }
        let counts = head.firstIndex(of: "EVENTS")!
        return OutputFormat.table(rows, rightAligned: [0, counts, counts + 1])
    }

    /// What a session derived from another says of itself: `branch of 3: left out 7; edited 12`,
    /// `replay of 3` (the original's id, or the start of its uuid when the log lacks it); `nil`
    /// for a recording.
    static func note(_ session: SessionInfo, ids: [String: Int64]) -> String? {
        guard let of = session.replayOf else { return nil }
        let original = ids[of].map(String.init) ?? String(of.prefix(8))
        guard let branch = session.branch else { return "replay of \(original)" }
        let changes = branch.changes
        return "branch of \(original)" + (changes.isEmpty ? "" : ": " + changes)
    }

    /// `sessions` (in id order) grouped by run (``groupedByRun(_:)``), each branch or replay
    /// right under the session it came from (in id order) instead of among the run's stores.
    static func ordered(_ sessions: [SessionInfo]) -> [SessionInfo] {
        let present = Set(sessions.map(\.uuid))
        var derived: [String: [SessionInfo]] = [:]
        var top: [SessionInfo] = []
        for session in sessions {
            if let of = session.replayOf, of != session.uuid, present.contains(of) {
                derived[of, default: []].append(session)
            } else {
                top.append(session)
            }
        }
        var out: [SessionInfo] = []
        var placed: Set<String> = []
        func place(_ session: SessionInfo) {
            guard placed.insert(session.uuid).inserted else { return }
            out.append(session)
            for child in derived[session.uuid] ?? [] { place(child) }
        }
        for session in groupedByRun(top) { place(session) }
        // A cycle of sessions replaying each other (only a hand-made log has one) is listed too.
        for session in sessions where !placed.contains(session.uuid) { place(session) }
        return out
    }

    /// `sessions` (in id order) with each run's sessions together: runs in the order of their
    /// first session, a session without a run on its own.
    static func groupedByRun(_ sessions: [SessionInfo]) -> [SessionInfo] {
        var order: [String] = []
        var members: [String: [SessionInfo]] = [:]
        for session in sessions {
            let key = session.run.map { "run:" + $0 } ?? "session:\(session.id)"
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(session)
        }
        return order.flatMap { members[$0] ?? [] }
    }

    /// The sessions an app holds now, as far as the store can tell: on a team store, those whose
    /// lease some instance holds; in a file no writer holds, none. `nil` when it cannot tell (a
    /// writer holds the file: `rewind serve` knows which of its sessions an app streams, this
    /// command does not), and every session without an end then counts as live.
    static func heldSessions(in store: any LogStore) -> Set<Int64>? {
        if let file = store as? SQLiteLogStore { return file.hasWriter ? nil : [] }
        guard let feed = try? store.openFeed() else { return nil }
        defer { feed.stop() }
        return try? feed.leasedSessions()
    }

    /// A session's one state (``WireSession/State``): ended, live while held, else interrupted.
    static func state(_ session: SessionInfo, held: Set<Int64>?) -> WireSession.State {
        WireSession.State(endedAt: session.endedAt?.timeIntervalSince1970, held: held?.contains(session.id) ?? true)
    }

    static func json(_ session: SessionInfo, ids: [String: Int64] = [:], held: Set<Int64>? = nil) -> JSONValue {
        let branch: JSONValue = session.branch.map { branch in
            [
                "of": .string(branch.of),
                "ofId": ids[branch.of].map(OutputFormat.number) ?? .null,
                "skipped": .array(branch.skipped.map(OutputFormat.number)),
                "edited": .array(branch.edited.map(OutputFormat.number)),
            ]
        } ?? .null
        return [
            "id": OutputFormat.number(session.id),
            "uuid": .string(session.uuid),
            "app": .string(session.app),
            "startedAt": OutputFormat.seconds(session.startedAt),
            "endedAt": session.endedAt.map(OutputFormat.seconds) ?? .null,
            "live": .bool(Self.state(session, held: held) == .live),
            "state": .string(Self.state(session, held: held).rawValue),
            "events": OutputFormat.number(session.eventCount),
            "keyframes": OutputFormat.number(session.keyframeCount),
            "lastSeq": session.lastSeq.map(OutputFormat.number) ?? .null,
            "meta": session.meta,
            "replayOf": session.replayOf.map(JSONValue.string) ?? .null,
            "run": session.run.map(JSONValue.string) ?? .null,
            "branch": branch,
            "note": Self.note(session, ids: ids).map(JSONValue.string) ?? .null,
            "appVersion": session.appVersion.map(JSONValue.string) ?? .null,
            "device": session.device.map(JSONValue.string) ?? .null,
            "os": session.os.map(JSONValue.string) ?? .null,
            "tags": .array(session.tags.map(JSONValue.string)),
            "crash": session.crash ?? .null,
        ]
    }
}
