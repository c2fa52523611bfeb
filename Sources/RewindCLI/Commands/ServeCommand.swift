import ArgumentParser
import Dispatch
import Foundation
import RewindPostgres
import RewindLog
import RewindServer
import RewindWebSocket

/// `rewind serve`: the server apps stream to and inspectors read from.
struct ServeCommand: ParsableCommand {
    /// Below this many characters a token is said to be short when the server is reachable from
    /// other machines (the kept `--lan` token is 32 hex characters).
    static let minimumTokenLength = 16

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Take apps' live events into the log and serve them to inspectors.",
        discussion: """
        Apps connect to ws://HOST:PORT/app, inspectors to ws://HOST:PORT/inspect; the inspector page is \
        built into rewind and served at http://HOST:PORT/ (--web DIR serves a folder instead, for working \
        on the page). Binding anything but 127.0.0.1 needs --token (or REWIND_TOKEN). --lan listens on \
        every interface for a device on the same network, with --token, REWIND_TOKEN or a token kept beside \
        the log, and prints what to set in the app's scheme. SIGINT or SIGTERM stops it cleanly: connections \
        close with 1001 and the log is flushed.

        --tls-cert and --tls-key (both, PEM) serve https and wss instead: apps connect to wss://HOST:PORT/app. \
        --app-token may only stream sessions (/app); --inspect-token may only inspect (/inspect, the page, \
        /export); --token opens both. Docs/Security.md says how they combine.

        GET /healthz answers while the server runs; GET /readyz while it takes apps and its log (or \
        database) takes writes. With --metrics, GET /metrics answers in Prometheus' text format; a \
        server that listens beyond this machine needs a token of their own for them, from \
        --metrics-token-file or REWIND_METRICS_TOKEN, sent as Authorization: Bearer TOKEN.

        --log-format json writes what the server says as one JSON object a line, for a log \
        collector (time, level, event, message; session, app and instance when known), and says \
        each session an app starts, resumes or ends; the default text log stays as it was.
        """
    )

    @Option(help: "The address to listen on (default: 127.0.0.1).")
    var host: String?

    @Flag(help: "Listen on every interface, for an app on a device: needs a token (made once and kept beside the log when none is given).")
    var lan = false

    @Option(help: "The TCP port (0 picks a free one).")
    var port = 7433

    @OptionGroup var log: LogLocation

    @Option(help: ArgumentHelp("Serve the inspector page from this folder instead of the page built into rewind (to work on web/).", valueName: "dir"))
    var web: String?

    @Option(help: "A secret every connection and page request must carry (default: $REWIND_TOKEN).")
    var token: String?

    @Option(help: ArgumentHelp("A token that may only stream sessions to /app (default: $REWIND_APP_TOKEN).", valueName: "token"))
    var appToken: String?

    @Option(help: ArgumentHelp("A token that may only inspect: /inspect, the page, /export (default: $REWIND_INSPECT_TOKEN).",
                               valueName: "token"))
    var inspectToken: String?

    @Option(help: ArgumentHelp("Read --token from this file (yours alone: chmod 600), not the command line.", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("Read --app-token from this file (yours alone: chmod 600).", valueName: "file"))
    var appTokenFile: String?

    @Option(help: ArgumentHelp("Read --inspect-token from this file (yours alone: chmod 600).", valueName: "file"))
    var inspectTokenFile: String?

    @Option(help: ArgumentHelp("How to write what the server says: text (\"rewind serve: …\" lines) or json (one object a line: time, level, event, message, and session, app, instance when known; sessions starting and ending too).",
                               valueName: "format"))
    var logFormat: ServeLogFormat = .text

    @Flag(help: "Answer GET /metrics in Prometheus' text format (events, sessions, connections, queues, commit times, errors, bytes).")
    var metrics = false

    @Option(help: ArgumentHelp("Read the token GET /metrics asks for from this file (default: $REWIND_METRICS_TOKEN); needed when the server listens beyond this machine.",
                               valueName: "file"))
    var metricsTokenFile: String?

    @Option(help: ArgumentHelp("The TLS certificate (PEM, chain after it) to serve https and wss with; needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The TLS certificate's private key (PEM, unencrypted); needs --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Flag(help: "Refuse commands to apps.")
    var readOnly = false

    @Option(help: ArgumentHelp("The largest incoming message, e.g. 16MiB, 512KiB or 1000000.", valueName: "size"))
    var maxMessage = "16MiB"

    @Option(help: ArgumentHelp("The largest state a session may reach (canonical compact JSON), e.g. 64MiB.", valueName: "size"))
    var maxState = "64MiB"

    @Option(help: ArgumentHelp("The most output queued for all connections together, e.g. 256MiB.", valueName: "size"))
    var maxOutput = "256MiB"

    @Option(help: ArgumentHelp("Seconds one inspector query may run before it is stopped.", valueName: "seconds"))
    var queryTimeout = 5.0

    @Option(help: ArgumentHelp("Seconds an app has to answer an inspector's command (jump, dispatch, replay).", valueName: "seconds"))
    var commandTimeout = 10.0

    func run() throws {
        // Before the server starts its threads, so that they hold the signals too.
        Interrupts.holdUntilCaught()
        // One descriptor per connection: the soft limit (often 1,024) up to the hard one.
        DescriptorLimit.raiseToHard()
        guard let maxMessageSize = Self.parseSize(maxMessage), maxMessageSize >= 1024 else {
            throw CLIError("--max-message must be a size of at least 1KiB, such as 16MiB or 1048576", code: 2)
        }
        guard let maxStateSize = Self.parseSize(maxState), maxStateSize >= 1024 else {
            throw CLIError("--max-state must be a size of at least 1KiB, such as 64MiB or 67108864", code: 2)
        }
        guard let maxOutput = Self.parseSize(maxOutput), maxOutput >= 1 << 20 else {
            throw CLIError("--max-output must be a size of at least 1MiB, such as 256MiB", code: 2)
        }
        guard queryTimeout > 0, queryTimeout.isFinite else {
            throw CLIError("--query-timeout must be a number of seconds above 0, such as 5 or 0.5", code: 2)
        }
        guard commandTimeout > 0, commandTimeout.isFinite, commandTimeout <= 86_400 else {
            throw CLIError("--command-timeout must be a number of seconds above 0 and at most 86400, such as 10 or 60", code: 2)
        }
        if lan, host != nil {
            throw CLIError("give --lan or --host, not both: --lan listens on every interface", code: 2)
        }
        let tls: WebSocketTLS?
        switch (tlsCert, tlsKey) {
        case (nil, nil): tls = nil
        case (let cert?, nil): throw CLIError("--tls-cert \(cert) needs --tls-key with its private key: give both, or neither for plain http", code: 2)
        case (nil, let key?): throw CLIError("--tls-key \(key) needs --tls-cert with its certificate: give both, or neither for plain http", code: 2)
        case (let cert?, let key?):
            func absolute(_ path: String) -> String {
                URL(fileURLWithPath: (path as NSString).expandingTildeInPath).standardizedFileURL.path
            }
            tls = WebSocketTLS(certificatePath: absolute(cert), privateKeyPath: absolute(key))
        }
        let host = lan ? "0.0.0.0" : self.host ?? "127.0.0.1"
        let webFolder = web.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath).standardizedFileURL.path }
        let environment = ProcessInfo.processInfo.environment
        let path = log.path
        // A team store (postgres://…) is shared by every instance; the file is this one's.
        let store = try log.store()
        let shown = store.location
        // Warnings are said once the server listens: a start that fails is its one sentence alone.
        var warnings: [String] = []
        // A token from its option (said to be visible to every user, on a command line), its file,
        // or its environment variable, in that order; an option and its file together are refused.
        func given(_ option: String?, _ name: String, file: String?, _ variable: String) throws -> String? {
            if let file {
                guard option == nil else { throw CLIError("give \(name) or \(name)-file, not both", code: 2) }
                return try SecretFile.read(file, option: name + "-file")
            }
            if option != nil {
                warnings.append("\(name) on the command line can be read by every user of this machine (ps); "
                                + "give it in \(variable) or \(name)-file instead")
            }
            return option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        var token = try given(token, "--token", file: tokenFile, "REWIND_TOKEN")
        let appToken = try given(appToken, "--app-token", file: appTokenFile, "REWIND_APP_TOKEN")
        let inspectToken = try given(inspectToken, "--inspect-token", file: inspectTokenFile, "REWIND_INSPECT_TOKEN")
        let metricsToken = try given(nil, "--metrics-token", file: metricsTokenFile, "REWIND_METRICS_TOKEN")
        if metricsTokenFile != nil, !metrics {
            throw CLIError("--metrics-token-file is the token of GET /metrics: give --metrics too", code: 2)
        }
        // A URL given as --db that carries a password (which the redacted form leaves out).
        if let url = log.db, PostgresURL.isPostgres(url), let parsed = try? PostgresURL(url), parsed.redacted != url {
            warnings.append("--db holds the database's password, which the command line shows to every user of this machine (ps); "
                            + "give it in PGPASSWORD or ~/.pgpass, or the whole URL in REWIND_DB")
        }
        var tokenNote: String?
        // The kept token opens what the scoped tokens leave open; with both of them, none is made.
        if lan, token == nil, appToken == nil || inspectToken == nil {
            let tokenPath = LANAccess.tokenPath(besideLog: store.isShared ? DefaultLog.path(environment: [:]) : path)
            let kept = try LANAccess.keptToken(at: tokenPath)
            token = kept.token
            tokenNote = kept.created ? "made and kept in \(tokenPath)" : "kept in \(tokenPath)"
        }
        // Reachable from other machines, a short token is guessed: said once at start.
        if !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
            for (option, value) in [("--token", token), ("--app-token", appToken), ("--inspect-token", inspectToken)] {
                if let value, value.utf8.count < Self.minimumTokenLength {
                    warnings.append("\(option) is \(value.utf8.count) characters long and \(host) is reachable from other machines; use at least \(Self.minimumTokenLength) random characters (openssl rand -hex 16)")
                }
            }
        }
        if !store.isShared {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        }
        var configuration = RewindServerConfiguration(
            logPath: store.isShared ? shown : path, host: host, port: port, webDirectory: webFolder,
            token: token, readOnly: readOnly, maxMessageSize: maxMessageSize)
        if store.isShared { configuration.store = store }
        configuration.appToken = appToken
        configuration.inspectToken = inspectToken
        configuration.metrics = metrics
        configuration.metricsToken = metricsToken
        if let problem = configuration.metricsProblem { throw CLIError(problem, code: 2) }
        let serveLog = ServeLog(format: logFormat)
        configuration.log = { entry in serveLog.entry(entry) }
        configuration.tls = tls
        configuration.maxStateSize = maxStateSize
        configuration.maxQueuedOutput = maxOutput
        configuration.queryTimeBudget = queryTimeout
        configuration.commandTimeout = .milliseconds(Int64(commandTimeout * 1000))
        // A --web that is not a folder is a mistake on the command line. A folder without
        // index.html (or a build without a page built in) still serves apps and inspectors over
        // WebSocket, and says at start that the page is missing.
        if let webFolder {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: webFolder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIError("--web \(webFolder) is not a folder; leave --web out to serve the page built into rewind", code: 2)
            }
        }
        let pageProblem = configuration.inspectorPageProblem
        let server: RewindServer
        do {
            server = try RewindServer(configuration: configuration)
            try server.start()
        } catch {
            throw CLIError(error.description, code: 1)
        }
        // Signals arrive as dispatch events: the shutdown runs on a queue while this thread waits.
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "rewind.serve.signals")
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                server.shutdown()
                done.signal()
            }
            source.resume()
            sources.append(source)
        }
        serveLog.started(instance: server.instanceID)
        if let warning = server.certificateWarning() { warnings.append(warning) }
        for warning in warnings { serveLog.say(warning, level: .warning, event: "warning") }
        var lines = "rewind serve: inspector at \(server.inspectorURL ?? "?")\n"
        if let pageProblem {
            let hint = webFolder == nil ? "" : "; leave --web out to serve the page built into rewind"
            serveLog.say("no inspector page to serve: \(pageProblem)\(hint)", level: .warning, event: "no-page")
        } else if let webFolder {
            lines += "rewind serve: the page is served from \(webFolder)\n"
        }
        // Every interface (--lan, or --host 0.0.0.0 / ::): this machine's addresses, not the
        // wildcard, which no client can connect to.
        let everyInterface = lan || ["0.0.0.0", "::", "[::]"].contains(host)
        let shownHost = everyInterface ? "127.0.0.1" : host
        let socketScheme = tls == nil ? "ws" : "wss"
        lines += "rewind serve: apps connect to \(socketScheme)://\(shownHost.contains(":") ? "[\(shownHost)]" : shownHost):\(server.port ?? port)/app\n"
        if let tls {
            lines += "rewind serve: TLS with \(tls.certificatePath); a client that does not trust its CA takes --ca-file or REWIND_CA_FILE\n"
        }
        if appToken != nil || inspectToken != nil {
            lines += "rewind serve: scoped tokens: " + [appToken.map { _ in "the app token may only stream to /app" },
                                                       inspectToken.map { _ in "the inspect token may only inspect" }]
                .compactMap { $0 }.joined(separator: "; ") + (token == nil ? "" : "; the server's token opens both") + "\n"
        }
        if everyInterface, let appSide = appToken ?? token {
            lines += Self.lanLines(port: server.port ?? port, token: appSide, tokenNote: tokenNote, addresses: LANAccess.addresses(),
                                   inspectToken: inspectToken ?? token ?? appSide, secure: tls != nil)
        }
        lines += store.isShared
            ? "rewind serve: log \(shown) (a team store: other instances may serve it too)\n"
            : "rewind serve: log \(path)\n"
        lines += Self.limitsLine(configuration)
        switch logFormat {
        case .text:
            FileHandle.standardOutput.write(Data(lines.utf8))
        case .json:
            for line in lines.split(separator: "\n") {
                serveLog.say(String(line.dropFirst(line.hasPrefix("rewind serve: ") ? "rewind serve: ".count : 0)), event: "started", toOutput: true)
            }
        }
        done.wait()
        withExtendedLifetime(sources) {}
        serveLog.say("stopped; the log is flushed", event: "stopped", toOutput: true)
    }

    /// The limits apps and inspectors meet: an app's message is sized from the state limit, so
    /// that any state within `--max-state` arrives (Docs/Security.md, "Limits").
    static func limitsLine(_ configuration: RewindServerConfiguration) -> String {
        let app = configuration.appMessageLimit
        let appNote = app == configuration.maxMessageSize ? "--max-message" : "--max-state + 1MiB, over --max-message"
        return "rewind serve: states up to \(ReplayInto.sizeText(configuration.maxStateSize)) (--max-state); "
            + "app messages up to \(ReplayInto.sizeText(app)) (\(appNote)); "
            + "inspector messages up to \(ReplayInto.sizeText(configuration.maxMessageSize)) (--max-message)\n"
    }

    /// What `--lan` prints: for each address a device can reach, the scheme's two variables and
    /// the inspector's URL; or that there is none, and loopback is served all the same.
    /// `token` is what an app's scheme takes (the app token when there is one), `inspectToken`
    /// what the inspector's address carries (the same when there are no scoped tokens).
    static func lanLines(port: Int, token: String, tokenNote: String?, addresses: [LANAccess.Address],
                         inspectToken: String? = nil, secure: Bool = false) -> String {
        let inspectToken = inspectToken ?? token
        var lines = inspectToken == token
            ? "rewind serve: listening on every interface; every connection needs the token \(token)"
            : "rewind serve: listening on every interface; apps stream with the token \(token), the inspector takes \(inspectToken)"
        lines += tokenNote.map { " (\($0))" } ?? ""
        lines += "\n"
        guard !addresses.isEmpty else {
            lines += "rewind serve: no network address besides loopback: a device cannot reach this machine; "
                + "apps on it still connect to 127.0.0.1 (join a network and restart to serve devices)\n"
            return lines
        }
        let encoded = inspectToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? inspectToken
        let (socketScheme, pageScheme) = secure ? ("wss", "https") : ("ws", "http")
        lines += "rewind serve: for an app on a device, set in its scheme (Run > Arguments > Environment Variables):\n"
        for address in addresses {
            lines += "rewind serve:   \(address.interface): REWIND_SERVER=\(socketScheme)://\(address.ip):\(port)/app REWIND_TOKEN=\(token)\n"
            lines += "rewind serve:   \(address.interface): inspector at \(pageScheme)://\(address.ip):\(port)/?token=\(encoded)\n"
        }
        return lines
    }

    /// `16MiB`, `512KiB`, `1MB`, `1000000` in bytes.
    static func parseSize(_ text: String) -> Int? {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        let units: [(String, Int)] = [("gib", 1 << 30), ("mib", 1 << 20), ("kib", 1 << 10), ("gb", 1_000_000_000),
                                      ("mb", 1_000_000), ("kb", 1_000), ("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10), ("b", 1)]
        for (suffix, factor) in units where lower.hasSuffix(suffix) {
            guard let value = Int(lower.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)) else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return Int(lower)
    }
}
