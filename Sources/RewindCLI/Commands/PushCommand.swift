import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindRecorder

struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Deliver sessions from a log file to rewind serve.",
        discussion: """
        Sends each session (every session of the log when none is named) to the server at \
        --server, as an app's recorder does when it reaches the server again: the server answers \
        how much of the session it holds and gets the rest, so pushing twice stores nothing twice. \
        For a log taken from a simulator's container or a device backup, or an app's local log \
        (store and forward) that still holds events the server lacks.

        --server may list several equivalent servers, separated by commas (a team's instances on \
        one database): each session goes to the first that answers, as a recorder's would. They         share --token and --ca-file.

        Prints one line per session: its uuid, app, and how many events the server had and has \
        now. When the log can be written, what the server acknowledged is recorded in it, and a \
        session recorded as delivered is not sent again. Exits 0 when the server holds every \
        session whole, 1 when one did not get through (its reason is printed), 2 when the log, a \
        session or the server's address is wrong.

        With --json, one object per session per line: uuid, app, events, serverHad, serverHas, \
        delivered, problem and server (the one that holds it).

        Example: rewind push --db ~/Library/Developer/CoreSimulator/…/rewind.db --server ws://127.0.0.1:7433
        """
    )

    @OptionGroup var log: LogLocation

    @Option(help: ArgumentHelp("The server's app address: ws://HOST:PORT (wss:// with TLS; the /app path is added), or what rewind serve prints; several, separated by commas, are tried in order.",
                               valueName: "url[,url…]"))
    var server: String

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
        guard timeout > 0, timeout <= 86_400 else { throw CLIError("--timeout must be between 0 and 86400 seconds", code: 2) }
        let entries = server.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var given: [URL] = []
        for (index, entry) in entries.enumerated() {
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
                    ?? (outcome.delivered ? "already delivered" : "no answer")
                let state = outcome.delivered ? "ok" : "not delivered: \(outcome.problem ?? "unknown")"
                // With several servers, the one that holds it.
                let holder = servers.count > 1 ? outcome.server.map { " on \($0.absoluteString)" } ?? "" : ""
                writeEscapedOutput("\(info.uuid.prefix(8))  \(info.app)  \(events) events, \(had), has \(outcome.serverHas + 1)\(holder): \(state)\n")
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
