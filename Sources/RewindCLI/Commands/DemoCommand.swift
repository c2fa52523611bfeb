import ArgumentParser
import Dispatch
import Foundation
import RewindDemo
import RewindPostgres

/// `rewind demo`: the sample apps, recorded to a server or a log, driven by scripted users.
struct DemoCommand: ParsableCommand {
    static let defaultServer = "ws://127.0.0.1:7433/app"

    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the sample apps (images, users, breweries, orders) and record them.",
        discussion: """
        Each app records one session, streamed to a running `rewind serve` (--server, the default) or \
        written to a log file (--db), while a scripted user acts --rate times a second. Streaming to a server, \
        the apps take the inspector's commands (jump, resume, dispatch, replay, pause). If the server cannot be \
        reached, that is said once on stderr and the apps keep recording, reconnecting with backoff. \
        --duration, SIGINT or SIGTERM stops: the recordings are flushed, the sessions ended, the exit status is 0.

        Example:
          rewind serve &
          rewind demo --app breweries --rate 10
          rewind demo --db /tmp/demo.db --duration 5 --rate 20
        """
    )

    @Option(help: ArgumentHelp("Stream to `rewind serve` at this address, or to the first of several separated by commas that answers (default: \(defaultServer)).", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The server's token (default: $REWIND_TOKEN), for a server started with --token.", valueName: "secret"))
    var token: String?

    @OptionGroup var caFile: CAFileOption

    @Option(help: ArgumentHelp("Record into this log file instead of streaming.", valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("Which app: images, users, breweries, orders, or all (comma-separated names also work).", valueName: "name"))
    var app = "all"

    @Option(help: ArgumentHelp("Scripted user actions per second per app.", valueName: "n"))
    var rate = 5.0

    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C or SIGTERM).", valueName: "s"))
    var duration: Double?

    @Option(help: "Seeds the fake back ends and the scripted users.")
    var seed: UInt64 = 1

    @Option(name: .customLong("state-log"), help: ArgumentHelp(
        "Append one JSON line per state change of any app: {app, session, hash, locked}.", valueName: "file"))
    var stateLog: String?

    func run() throws {
        let kinds = try Self.parseApps(app)
        guard rate > 0, rate <= 1000, rate.isFinite else {
            throw CLIError("--rate must be a number of actions per second above 0 and at most 1000, not \(rate)", code: 2)
        }
        if let duration, !(duration > 0 && duration <= 31_536_000) {
            throw CLIError("--duration must be a number of seconds above 0 and at most a year (31536000), not \(duration)", code: 2)
        }
        let rate = self.rate, seed = self.seed, duration = self.duration, stateLogPath = self.stateLog
        try MainActor.assumeIsolated {
            // The state log first: a bad path there must not leave a new, empty log behind.
            var stateLog: DemoStateLog?
            if let stateLogPath {
                do { stateLog = try DemoStateLog(path: stateLogPath) } catch { throw CLIError("\(error)", code: 2) }
            }
            let destination = try resolveDestination()
            let label: String
            switch destination {
            case .file(let path): label = path
            case .server(let url, _, _): label = url.absoluteString
            case .servers(let urls, _, _): label = urls.map(\.absoluteString).joined(separator: ",")
            }
            let runner = DemoRunner(apps: kinds, destination: destination, rate: rate, seed: seed, stateLog: stateLog)
            DemoLifecycle.start(runner, label: label, rate: rate, seed: seed, duration: duration)
        }
        // The apps run on the main actor, whose executor is the main queue: serve it until exit.
        dispatchMain()
    }

    /// The apps `--app` names.
    static func parseApps(_ text: String) throws -> [DemoAppKind] {
        if text == "all" { return DemoAppKind.allCases }
        var kinds: [DemoAppKind] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let kind = DemoAppKind(rawValue: name) else {
                let known = DemoAppKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError("--app: there is no demo app named '\(name)' (known: \(known), or all)", code: 2)
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }

    /// `--server` or `--db`, checked: a URL `rewind serve` can take, or a log that opens for writing.
    func resolveDestination() throws -> DemoRunner.Destination {
        if server != nil, db != nil {
            throw CLIError("give --server or --db, not both: the demo either streams to a server or writes a log", code: 2)
        }
        if let db {
            guard !db.isEmpty else { throw CLIError("--db needs a file path", code: 2) }
            if PostgresLogStore.isURL(db) {
                // The apps record through the recorder, which writes a file (it never links libpq).
                throw CLIError("--db: rewind demo records into a log file, not a database; to fill a team store, run rewind serve --db \(PostgresLogStore.redacted(db)) and rewind demo --server", code: 2)
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: db, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CLIError("--db: \(db) is a folder, not a log file", code: 2)
            }
            // Open (and create) the log now, so an unwritable path fails here with one sentence
            // instead of stopping each app's recording later.
            let writer = try LogLocation(db: db).openWriter()
            writer.close()
            return .file(db)
        }
        let text = server ?? Self.defaultServer
        // One address, or several separated by commas (a team's instances), as REWIND_SERVER takes them.
        var urls: [URL] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let url = URL(string: entry), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
                  let host = url.host, !host.isEmpty else {
                throw CLIError("--server: '\(entry)' is not a WebSocket address such as \(Self.defaultServer)", code: 2)
            }
            urls.append(url)
        }
        let appToken = ServerLocation.token(token, side: .app)
        let trusted = try caFile.resolved()
        return urls.count == 1 ? .server(urls[0], token: appToken, caFile: trusted) : .servers(urls, token: appToken, caFile: trusted)
    }
}

extension LogLocation {
    init(db: String) {
        self.init()
        self.db = db
    }
}
