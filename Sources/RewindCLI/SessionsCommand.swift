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

        With --json, one object per line: id, uuid, app, startedAt and endedAt (seconds since \
        1970; endedAt null while live), live, events, keyframes, lastSeq, meta, replayOf, run.

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
        let grouped = Self.groupedByRun(sessions)
        if json {
            for session in grouped { writeJSONLine(Self.json(session)) }
            return
        }
        guard !sessions.isEmpty else {
            writeStandardError("no sessions in \(reader.path) yet")
            return
        }
        var rows = [["ID", "UUID", "RUN", "APP", "STARTED", "ENDED", "EVENTS", "KEYFRAMES"]]
        for session in grouped {
            rows.append([
                // The table escapes every cell: the uuid, the run and the app are the app's to choose.
                String(session.id), String(session.uuid.prefix(8)), session.run.map { String($0.prefix(8)) } ?? "-",
                session.app,
                OutputFormat.time(session.startedAt), session.endedAt.map(OutputFormat.time) ?? "live",
                OutputFormat.count(session.eventCount), OutputFormat.count(session.keyframeCount),
            ])
        }
        writeStandardOutput(OutputFormat.table(rows, rightAligned: [0, 6, 7]))
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

    static func json(_ session: SessionInfo) -> JSONValue {
        [
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
        ]
    }
}
