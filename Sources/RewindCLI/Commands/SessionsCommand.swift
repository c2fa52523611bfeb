import ArgumentParser
import Foundation
import RewindJSON
import RewindLog

struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions recorded in the log.",
        discussion: """
        One line per session: its id, the start of its uuid, the start of its run, the app, when \
        it started, when it ended ('live' while it has not), and how many events and keyframes \
        it holds. Name a session in other commands by its id, a uuid prefix or 'latest'.

        A run is one process of the app: an app with a store per screen (BLoC, MVVM) records a \
        session per store, and they share a run. Sessions are grouped by run, runs in the order \
        their first session started, and the sessions of a run oldest first.

        A branch (rewind branch, the inspector's Leave out & branch) or a replay the app recorded \
        is listed right under the session it came from, not as a store of the run, with a NOTE (a \
        column shown when some session has one): \
        'branch of 3: left out 7; edited 12' or 'replay of 3'. 'latest' never names a branch.

        With --json, one object per line: id, uuid, app, startedAt and endedAt (seconds since \
        1970; endedAt null while live), live, events, keyframes, lastSeq, meta, replayOf, run, \
        branch ({of, ofId, skipped, edited} or null) and note (the NOTE, or null).

        Example: rewind sessions --db ./todo.db
        """
    )

    @OptionGroup var log: LogLocation

    @Flag(help: "Print one JSON object per session, one per line.")
    var json = false

    func run() throws {
        let reader = try log.openReader()
        let sessions: [SessionInfo]
        do {
            sessions = try reader.sessions()
        } catch {
            throw CLIError(error.description, code: 2)
        }
        let grouped = Self.ordered(sessions)
        let ids = Dictionary(sessions.map { ($0.uuid, $0.id) }, uniquingKeysWith: { first, _ in first })
        if json {
            for session in grouped { writeJSONLine(Self.json(session, ids: ids)) }
            return
        }
        guard !sessions.isEmpty else {
            writeStandardError("no sessions in \(reader.path) yet")
            return
        }
        // The NOTE column only when a session has one (a branch or a replay).
        let notes = grouped.map { Self.note($0, ids: ids) }
        let noted = notes.contains { $0 != nil }
        var rows = [["ID", "UUID", "RUN", "APP", "STARTED", "ENDED", "EVENTS", "KEYFRAMES"] + (noted ? ["NOTE"] : [])]
        for (session, note) in zip(grouped, notes) {
            rows.append([
                // The table escapes every cell: the uuid, the run and the app are the app's to choose.
                String(session.id), String(session.uuid.prefix(8)), session.run.map { String($0.prefix(8)) } ?? "-",
                session.app,
                OutputFormat.time(session.startedAt), session.endedAt.map(OutputFormat.time) ?? "live",
                OutputFormat.count(session.eventCount), OutputFormat.count(session.keyframeCount),
            ] + (noted ? [note ?? ""] : []))
        }
        writeStandardOutput(OutputFormat.table(rows, rightAligned: [0, 6, 7]))
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

    static func json(_ session: SessionInfo, ids: [String: Int64] = [:]) -> JSONValue {
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
            "live": .bool(session.endedAt == nil),
            "events": OutputFormat.number(session.eventCount),
            "keyframes": OutputFormat.number(session.keyframeCount),
            "lastSeq": session.lastSeq.map(OutputFormat.number) ?? .null,
            "meta": session.meta,
            "replayOf": session.replayOf.map(JSONValue.string) ?? .null,
            "run": session.run.map(JSONValue.string) ?? .null,
            "branch": branch,
            "note": Self.note(session, ids: ids).map(JSONValue.string) ?? .null,
        ]
    }
}
