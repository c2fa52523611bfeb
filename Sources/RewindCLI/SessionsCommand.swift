import ArgumentParser
import Foundation
import RewindJSON
import RewindLog

struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions recorded in the log.",
        discussion: """
        One line per session, oldest first: its id, the start of its uuid, the app, when it \
        started, when it ended ('live' while it has not), and how many events and keyframes it \
        holds. Name a session in other commands by its id, a uuid prefix or 'latest'.

        With --json, one object per line: id, uuid, app, startedAt and endedAt (seconds since \
        1970; endedAt null while live), live, events, keyframes, lastSeq, meta, replayOf.

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
        if json {
            for session in sessions { writeJSONLine(Self.json(session)) }
            return
        }
        guard !sessions.isEmpty else {
            FileHandle.standardError.write(Data("no sessions in \(reader.path) yet\n".utf8))
            return
        }
        var rows = [["ID", "UUID", "APP", "STARTED", "ENDED", "EVENTS", "KEYFRAMES"]]
        for session in sessions {
            rows.append([
                String(session.id), String(session.uuid.prefix(8)), session.app,
                OutputFormat.time(session.startedAt), session.endedAt.map(OutputFormat.time) ?? "live",
                OutputFormat.count(session.eventCount), OutputFormat.count(session.keyframeCount),
            ])
        }
        writeStandardOutput(OutputFormat.table(rows, rightAligned: [0, 5, 6]))
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
        ]
    }
}
