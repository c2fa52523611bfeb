import ArgumentParser
import Foundation
import RewindJSON
import RewindLog

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove whole sessions from the log: the only way data leaves it.",
        discussion: """
        Removes the sessions named (an id, a uuid prefix or 'latest' each), or with --older-than \
        the sessions whose last activity (their last event, their end or their start, whichever \
        is latest) is older than AGE: a number of days (30), a span (12h, 30d, 2w) or a time \
        (2025-11-20, 2025-11-20T14:00:00Z). Events, keyframes and the search index go with \
        them, in one transaction; the other sessions stay whole. Prints each session removed.

        Give sessions or --older-than, not neither and not both (exit 2). A session that does \
        not exist exits 2 and removes nothing. --dry-run prints what would go and removes nothing.

        Example: rewind prune --older-than 30d --dry-run
        """
    )

    @Argument(help: "The sessions to remove: ids, uuid prefixes or 'latest'.")
    var sessions: [String] = []

    @Option(name: .customLong("older-than"), help: ArgumentHelp("Remove the sessions inactive for longer than this: days (30, fractions allowed), a span (12h, 30d, 2w) or a time (2025-11-20).", valueName: "age"))
    var olderThanText: String?

    /// `--older-than` in days before `now`, and how "Nothing to remove" says it.
    private func olderThanDays(now: Date) throws -> (days: Double, said: String)? {
        guard let text = olderThanText else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let days = Double(trimmed) {
            guard days.isFinite && days >= 0 else {
                throw CLIError("--older-than takes a number of days, 0 or more; nothing was removed.", code: 2)
            }
            return (days, "for more than \(Self.days(days))")
        }
        let cutoff: Date
        do {
            cutoff = try TimeArgument.parse(text, option: "--older-than", now: now)
        } catch {
            throw CLIError("--older-than takes a number of days (30), a span (12h, 30d, 2w) or a time (2025-11-20, 2025-11-20T14:00:00Z); got '\(TerminalText.escaped(String(text.prefix(64))))'; nothing was removed.", code: 2)
        }
        guard cutoff <= now else {
            throw CLIError("--older-than \(TerminalText.escaped(String(text.prefix(64)))) is in the future; nothing was removed.", code: 2)
        }
        let isSpan = trimmed.last.map { "smhdw".contains($0) } ?? false
        return (now.timeIntervalSince(cutoff) / 86_400, isSpan ? "for more than \(trimmed)" : "since \(trimmed)")
    }

    @Flag(help: "List what would be removed, and remove nothing.")
    var dryRun = false

    @Flag(help: "Print the sessions as JSON.")
    var json = false

    @OptionGroup var log: LogLocation

    /// Refuses what would remove nothing or too much. (Checked in `run`, not `validate`, so the
    /// message and exit code are the CLI's own.)
    private func check(olderThan: Double?) throws {
        if sessions.isEmpty && olderThan == nil {
            throw CLIError("rewind prune needs the sessions to remove or --older-than DAYS; nothing was removed.", code: 2)
        }
        if !sessions.isEmpty && olderThan != nil {
            throw CLIError("give rewind prune either sessions or --older-than, not both; nothing was removed.", code: 2)
        }
    }

    func run() throws {
        let now = Date()
        let age = try olderThanDays(now: now)
        let olderThan = age?.days
        try check(olderThan: olderThan)
        let reader = try log.openReader()
        var candidates: [SessionInfo] = []
        if let olderThan {
            let cutoff = now.addingTimeInterval(-olderThan * 86_400)
            candidates = try readSessions(reader).filter { $0.lastActivity < cutoff }
        } else {
            for name in sessions {
                let info = try reader.resolveSession(name)
                if !candidates.contains(where: { $0.id == info.id }) { candidates.append(info) }
            }
        }

        var removed = candidates
        if !dryRun && !candidates.isEmpty {
            let writer = try log.openWriter()
            defer { writer.close() }
            let ids: [Int64]
            do {
                if let olderThan {
                    ids = try writer.prune(olderThanDays: olderThan, now: now)
                } else {
                    ids = try writer.prune(sessions: candidates.map(\.id))
                }
            } catch {
                throw CLIError(error.description, code: 2)
            }
            removed = ids.map { id in
                candidates.first { $0.id == id } ?? SessionInfo(id: id, uuid: "?", app: "?", startedAt: now)
            }
        }
        // A session named on the command line that stayed: on a team store, one whose lease an
        // instance holds (an app streams it now). Said, not passed over as "no session matched".
        let kept = olderThan == nil && !dryRun ? candidates.filter { candidate in !removed.contains { $0.id == candidate.id } } : []
        if !removed.isEmpty || kept.isEmpty { report(removed, age: age?.said) }
        do {
            if let first = kept.first {
                let more = kept.count > 1 ? " (and \(kept.count - 1) more)" : ""
                throw CLIError("session \(first.id) (\(shown: first.uuid.prefix(8)), \(shown: first.app))\(more) was not removed: an app streams it now; prune it once it has ended or been interrupted", code: 1)
            }
        }
    }

    private func readSessions(_ reader: LogReader) throws -> [SessionInfo] {
        do {
            return try reader.sessions()
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }

    private func report(_ removed: [SessionInfo], age: String?) {
        if json {
            let list: [JSONValue] = removed.map { session in
                [
                    "id": .number(JSONNumber(session.id)), "uuid": .string(session.uuid), "app": .string(session.app),
                    "events": .number(JSONNumber(session.eventCount)),
                    "lastActivity": .string(session.lastActivity.formatted(.iso8601)),
                ]
            }
            let result: JSONValue = ["dryRun": .bool(dryRun), "removed": .array(list)]
            writeStandardOutput(jsonLine(result))
            return
        }
        guard !removed.isEmpty else {
            let which = age.map { "no session has been inactive \($0)" } ?? "no session matched"
            writeEscapedOutput("Nothing to remove: \(which).\n")
            return
        }
        var text = ""
        for session in removed {
            text += "\(dryRun ? "Would remove" : "Removed") session \(session.id) (uuid \(shown: session.uuid), app \(shown: session.app), "
            text += "\(session.eventCount) \(session.eventCount == 1 ? "event" : "events"), last active \(session.lastActivity.formatted(.iso8601))).\n"
        }
        let events = removed.reduce(0) { $0 + $1.eventCount }
        let count = "\(removed.count) \(removed.count == 1 ? "session" : "sessions"), \(events) \(events == 1 ? "event" : "events")"
        text += dryRun ? "Would remove \(count); nothing was removed (--dry-run).\n" : "Removed \(count).\n"
        writeEscapedOutput(text)
    }

    private static func days(_ value: Double) -> String {
        let text = value == value.rounded() ? String(Int64(value)) : String(value)
        return "\(text) \(value == 1 ? "day" : "days")"
    }
}
