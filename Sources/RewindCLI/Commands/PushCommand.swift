import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindRecorder

struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Deliver sessions from a log file to rewind serve, or copy them into a team database.",
        discussion: """
        Sends each session (every session of the log when none is named) to the server at \
        --server, as an app's recorder does when it reaches the server again: the server answers \
        how much of the session it holds and gets the rest, so pushing twice stores nothing twice. \
        For a log taken from a simulator's container or a device backup, or an app's local log \
        (store and forward) that still holds events the server lacks.

        --server may list several equivalent servers, separated by commas (a team's instances on \
        one database): each session goes to the first that answers, as a recorder's would. They \
        share --token and --ca-file.

        Prints one line per session: its uuid, app, and how many events the server had and has \
        now. When the log can be written, what the server acknowledged is recorded in it, and a \
        session recorded as delivered is not sent again. Exits 0 when the server holds every \
        session whole, 1 when one did not get through (its reason is printed), 2 when the log, a \
        session or the server's address is wrong.

        With --json, one object per session per line: uuid, app, events, serverHad, serverHas, \
        delivered, problem and server (the one that holds it).

        --to LOG copies the sessions straight into another log instead: a team database \
        (postgres://USER@HOST:PORT/DB, created or migrated on first use) or a file, with no \
        server in between. Each session goes whole: its events with their keyframes, non-finite \
        marks and send sites, its meta and tags, run, state hash version and end; only its id is \
        the target's own. A session is known by its uuid: one the target already holds whole is \
        skipped, one it holds in part gets the events it lacks. --db may then be a database too \
        (postgres://… --to FILE takes a team's sessions to a laptop). Prints one line per \
        session (copied, completed or skipped), then a summary. Exits 0 when the target holds \
        every session whole, 1 when one could not be copied (a session another rewind serve is \
        writing now, or another session under the same uuid), 2 when a log cannot be opened or \
        reached. With --json, one object per session per line: uuid, app, events, had, copied, \
        skipped, id (the target's) and problem.

        Examples:
          rewind push --db ~/Library/Developer/CoreSimulator/…/rewind.db --server ws://127.0.0.1:7433
          rewind push --db rewind.db --to postgres://rewind@db.internal:5432/rewind
        """
    )

    @OptionGroup var log: LogLocation

    @Option(help: ArgumentHelp("The server's app address: ws://HOST:PORT (wss:// with TLS; the /app path is added), or what rewind serve prints; several, separated by commas, are tried in order.",
                               valueName: "url[,url…]"))
    var server: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("Copy into this log instead of a server: a team database's postgres://USER@HOST:PORT/DB URL, or a file.",
                                                         valueName: "url|path"))
    var target: String?

    @Option(help: ArgumentHelp("The server's token or app token (default: $REWIND_TOKEN, else $REWIND_APP_TOKEN).", valueName: "token"))
    var token: String?

    @OptionGroup var caFile: CAFileOption

    @Option(help: ArgumentHelp("How long to wait for each session, in seconds.", valueName: "seconds"))
    var timeout: Double = 60

    @Argument(help: "Sessions to push (ids, uuid prefixes or 'latest'); every session when left out.")
    var sessions: [String] = []

    @Flag(help: "Print one JSON object per session, one per line.")
    var json = false

    func run() throws {
        switch (server, target) {
        case (nil, nil):
            throw CLIError("rewind push needs --server (a rewind serve to deliver to) or --to (a database or file to copy into)", code: 2)
        case (.some, .some):
            throw CLIError("give rewind push --server or --to, not both: it delivers to a server or copies into a log", code: 2)
        case (nil, .some(let target)):
            try copy(to: target)
        case (.some(let server), nil):
            try deliver(to: server)
        }
    }

    private func deliver(to server: String) throws {
        guard timeout > 0, timeout <= 86_400 else { throw CLIError("--timeout must be between 0 and 86400 seconds", code: 2) }
        let entries = server.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var given: [URL] = []
        for (index, entry) in entries.enumerated() {
            if PostgresLogStore.isURL(entry) {
                throw CLIError("--server takes a rewind serve's address, and \(PostgresLogStore.redacted(entry)) is a database: to copy into it, use --to", code: 2)
            }
            guard !entry.isEmpty, let url = URL(string: entry) else {
                let which = entries.count == 1 ? "" : " (server \(index + 1) of \(entries.count))"
                throw CLIError("--server '\(entry)'\(which) is not the server's address (write ws://HOST:PORT, as rewind serve prints it; several separated by commas)", code: 2)
            }
            given.append(url)
        }
        let servers: [(url: URL, token: String?)]
        let caFile = try caFile.resolved()
        switch LogPush.resolve(given, token: ServerLocation.token(self.token, side: .app)) {
        case .success(let resolved): servers = resolved
        case .failure(let problem): throw CLIError("--server: \(problem.message)", code: 2)
        }
        let path = log.path
        if log.isDatabase {
            // A server takes sessions the way an app's recorder sends them, from a file.
            throw CLIError("rewind push --server delivers sessions from a log file, and \(PostgresLogStore.redacted(path)) is a database; to copy from it, use --to", code: 2)
        }
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("No Rewind log at \(path): the file does not exist.", code: 2) }
        let outcomes: [LogPush.Outcome]
        do {
            outcomes = try LogPush.push(path: path, sessions: sessions, servers: servers, caFile: caFile,
                                        timeout: .milliseconds(Int64(timeout * 1000)))
        } catch let error as LogError {
            throw CLIError(error.description, code: 2)
        }
        var failed = 0
        for outcome in outcomes {
            let info = outcome.session
            let events = (info.lastSeq ?? -1) + 1
            if !outcome.delivered { failed += 1 }
            if json {
                var line: JSONObject = ["uuid": .string(info.uuid), "app": .string(info.app), "events": .number(JSONNumber(events)),
                                        "serverHas": .number(JSONNumber(outcome.serverHas + 1)), "delivered": .bool(outcome.delivered)]
                line["serverHad"] = outcome.serverHad.map { .number(JSONNumber($0)) } ?? .null
                line["problem"] = outcome.problem.map { .string($0) } ?? .null
                line["server"] = outcome.server.map { .string($0.absoluteString) } ?? .null
                writeStandardOutput(jsonLine(.object(line)))
            } else {
                let had = outcome.serverHad.map { "the server had \($0)" }
                    ?? (outcome.delivered ? "already delivered (this log's mark; the server was not asked)" : "no answer")
                let state = outcome.delivered ? "ok" : "not delivered: \(outcome.problem ?? "unknown")"
                // With several servers, the one that holds it.
                let holder = servers.count > 1 ? outcome.server.map { " on \($0.absoluteString)" } ?? "" : ""
                writeEscapedOutput("\(shown: info.uuid.prefix(8))  \(shown: info.app)  \(events) events, \(had), has \(outcome.serverHas + 1)\(holder): \(shown: state)\n")
            }
        }
        if !json {
            let sent = outcomes.count - failed
            let holders = servers.count == 1 ? servers[0].url.absoluteString
                : "one of " + servers.map(\.url.absoluteString).joined(separator: ", ")
            writeEscapedOutput("\(sent) of \(outcomes.count) session\(outcomes.count == 1 ? "" : "s") held whole by \(holders)\n")
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

extension PushCommand {
    /// `--to`: copies the sessions into another log (``SessionCopy``), printing each outcome.
    private func copy(to target: String) throws {
        guard !target.isEmpty else { throw CLIError("--to needs a postgres://USER@HOST:PORT/DB URL or a file path", code: 2) }
        let targetLog = LogLocation(db: target)
        if Self.sameLog(log.path, target) {
            throw CLIError("--to names the log --db reads (\(targetLog.isDatabase ? PostgresLogStore.redacted(target) : target)); nothing was copied", code: 2)
        }
        let reader = try log.openReader()
        let infos: [SessionInfo]
        if sessions.isEmpty {
            do {
                infos = try reader.sessions()
            } catch {
                throw CLIError(error.description, code: 2)
            }
        } else {
            var named: [SessionInfo] = []
            for name in sessions {
                let info = try reader.resolveSession(name)
                if !named.contains(where: { $0.id == info.id }) { named.append(info) }
            }
            infos = named
        }
        let writer = try targetLog.openWriter()
        defer { writer.close() }
        let targetReader = try targetLog.openReader()
        let copier = SessionCopy(source: reader, target: writer, targetReader: targetReader)
        var counts = (copied: 0, completed: 0, skipped: 0, failed: 0, events: 0)
        for info in infos {
            let outcome: SessionCopy.Outcome
            do {
                outcome = try copier.copy(info)
            } catch {
                // The source or the target went away: what was copied before stays.
                throw CLIError(error.description, code: 2)
            }
            let events = info.eventCount
            var line: String
            var object: JSONObject = ["uuid": .string(info.uuid), "app": .string(info.app), "events": OutputFormat.number(events)]
            func describe(had: Int, copied: Int, skipped: Bool, id: Int64?, problem: String?) {
                object["had"] = OutputFormat.number(had)
                object["copied"] = OutputFormat.number(copied)
                object["skipped"] = .bool(skipped)
                object["id"] = id.map { OutputFormat.number($0) } ?? .null
                object["problem"] = problem.map { .string($0) } ?? .null
            }
            switch outcome {
            case .copied(let id, let copied):
                counts.copied += 1
                counts.events += copied
                line = "copied \(Self.events(copied)) as session \(id)"
                describe(had: 0, copied: copied, skipped: false, id: id, problem: nil)
            case .completed(let id, let had, let added):
                counts.completed += 1
                counts.events += added
                line = "it held \(Self.events(had)); copied the other \(OutputFormat.count(added)) into session \(id)"
                describe(had: had, copied: added, skipped: false, id: id, problem: nil)
            case .skipped(let id, let held):
                counts.skipped += 1
                line = "skipped: session \(id) there already holds \(Self.events(held))"
                describe(had: held, copied: 0, skipped: true, id: id, problem: nil)
            case .failed(let problem, let stored):
                counts.failed += 1
                line = "not copied: \(problem)"
                describe(had: stored, copied: 0, skipped: false, id: nil, problem: problem)
            }
            if json {
                writeStandardOutput(jsonLine(.object(object)))
            } else {
                writeEscapedOutput("\(shown: info.uuid.prefix(8))  \(shown: info.app)  \(Self.events(events)): \(shown: line)\n")
            }
        }
        if !json {
            var summary = "Copied \(Self.plural(counts.copied + counts.completed, "session")) (\(Self.events(counts.events))) into \(writer.path)"
            summary += "; skipped \(OutputFormat.count(counts.skipped)) it already held"
            if counts.failed > 0 { summary += "; \(OutputFormat.count(counts.failed)) could not be copied" }
            writeEscapedOutput(summary + ".\n")
        }
        if counts.failed > 0 { throw ExitCode(1) }
    }

    /// Whether `a` and `b` name the same log: the same database URL (password aside), or the
    /// same file.
    private static func sameLog(_ a: String, _ b: String) -> Bool {
        if PostgresLogStore.isURL(a) || PostgresLogStore.isURL(b) {
            return PostgresLogStore.redacted(a) == PostgresLogStore.redacted(b)
        }
        let left = URL(fileURLWithPath: a).standardizedFileURL.resolvingSymlinksInPath().path
        let right = URL(fileURLWithPath: b).standardizedFileURL.resolvingSymlinksInPath().path
        return left == right
    }

    private static func events(_ count: Int) -> String {
        plural(count, "event")
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(OutputFormat.count(count)) \(noun)\(count == 1 ? "" : "s")"
    }
}
