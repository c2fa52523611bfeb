import RewindLog
import RewindJSON
import RewindWebSocket

/// How a ``RewindServer`` listens, where it keeps the log and what it allows.
///
/// ```swift
/// var configuration = RewindServerConfiguration(logPath: "/tmp/rewind.db")
/// configuration.port = 0          // let the system pick; read it back from `server.port`
/// configuration.readOnly = true   // inspectors may look but not send commands
/// ```
public struct RewindServerConfiguration: Sendable {
    /// The address to bind; default `127.0.0.1`. Anything that is not loopback needs ``token``.
    public var host: String
    /// The TCP port (default 7433); 0 lets the system pick one.
    public var port: Int
    /// The log file the server writes (created when missing).
    public var logPath: String
    /// The log's store when it is not the file at ``logPath``: a team's PostgreSQL database
    /// (`rewind serve --db postgres://…`), shared by several servers.
    public var store: (any LogStore)?
    /// The store the server writes and reads: ``store``, else the SQLite file at ``logPath``.
    public var logStore: any LogStore { store ?? SQLiteLogStore(path: logPath) }
    /// The folder the inspector page is served from; `nil` serves the page built into Rewind
    /// (`web/` as it was when the package was built), so a copied binary serves it too.
    public var webDirectory: String?
    /// A secret every WebSocket upgrade and page request must carry; `nil` for none. It opens
    /// everything: streaming on `/app`, and `/inspect`, the page and `/export`.
    public var token: String?
    /// A token that may only stream sessions (`/app`), for the devices and CI runs that record:
    /// refused on `/inspect`, the page and `/export` with `403` and one sentence.
    public var appToken: String?
    /// A token that may read and send commands (`/inspect`, the page, `/export`) but not stream:
    /// refused on `/app` with `403` and one sentence.
    public var inspectToken: String?
    /// The certificate and key to serve `https` and `wss` with; `nil` serves plain `http`/`ws`.
    public var tls: WebSocketTLS?
    /// Refuse every command for an app (`error read-only`).
    public var readOnly: Bool
    /// The largest incoming message in bytes (default 16 MiB); a larger one closes its
    /// connection with 1009 and nothing of it is stored. On `/app` the limit is
    /// ``appMessageLimit``, which is never below the largest state plus room for the rest of
    /// the event.
    public var maxMessageSize: Int
    /// Bounds on each connection's outgoing queue; an inspector that fills its queue is `lagged`.
    public var queueLimits: WebSocketQueueLimits
    /// How long an app has to answer a command before the inspector is told it timed out.
    public var commandTimeout: Duration
    /// Protocol errors in a row after which an app or inspector connection is closed with 1008.
    public var maxConsecutiveErrors: Int
    /// The largest state a session may reach, in bytes of canonical compact JSON (default
    /// 64 MiB). An event whose state would be larger is refused with `state-too-large` and
    /// nothing is stored; a patch is refused as soon as its operations add more than this.
    public var maxStateSize: Int = 64 << 20
    /// The most output queued across all connections, in bytes (default 256 MiB). Past it, the
    /// connection holding the largest queue is closed with 1008 and its queue dropped.
    public var maxQueuedOutput: Int = 256 << 20
    /// Requests one inspector may have waiting for replies (default 16); more are refused at
    /// once with `too-many-requests`.
    public var maxRequestsInFlight: Int = 16
    /// Seconds one query may run before it is stopped with `query-timeout` (default 5).
    public var queryTimeBudget: Double = 5
    /// Exports (`GET /export/…`) streaming at once (default 2). Another is answered `503` with
    /// `Retry-After: 5` until one ends. Each holds a reader connection of its own, a thread, and at
    /// most a 1 MiB buffer of output besides the state it is writing.
    public var maxConcurrentExports: Int = 2
    /// How long an export's client may take nothing while output waits for it (default 30 s,
    /// whole seconds) before it is dropped and its export stops.
    public var exportStallTimeout: Duration = .seconds(30)
    /// How long the socket thread waits after reading a little before it reads again (default
    /// 1.5 ms, at most 100 ms; see `WebSocketServerConfiguration.receiveGathering`). At a steady
    /// few thousand events a second it reads several at a time and takes them in one drain,
    /// whose pushes go out before the wait (Docs/BenchmarkHistory.md, "Out of process, fifth
    /// part" and "The steady-rate cost"): an event waits for the read, not for the write, so
    /// 1.5 ms costs less latency than 1 ms did when the pushes waited too, and less CPU.
    public var receiveGathering: Duration = .microseconds(1_500)
    /// Where the server says what an operator should know while it runs, one sentence at a time
    /// (the first request of a burst refused for its token, and how many followed); `rewind
    /// serve` writes them to standard error. `nil`: said nowhere.
    public var notice: (@Sendable (String) -> Void)?
    /// Where the server says what it does, as entries a log collector files (``ServerLogEntry``):
    /// what ``notice`` hears, and each session an app starts, resumes or ends here. `nil`: said
    /// nowhere.
    public var log: (@Sendable (ServerLogEntry) -> Void)?
    /// Whether `GET /metrics` answers (Prometheus' text format; off by default).
    public var metrics = false
    /// The token `GET /metrics` asks for (`Authorization: Bearer`), apart from the others; a
    /// server that listens beyond this machine needs one for its metrics.
    public var metricsToken: String?

    /// Why the metrics cannot be served as configured, in one sentence; `nil` when they can.
    public var metricsProblem: String? {
        guard metrics else { return nil }
        let token = (metricsToken ?? "").isEmpty ? nil : metricsToken
        if let token, [self.token, appToken, inspectToken].contains(token) {
            return "--metrics-token is the same as another token; give the metrics a token of their own"
        }
        if token == nil, !bindsLoopbackOnly {
            return "--metrics on a server that listens beyond this machine (\(host)) needs --metrics-token-file (or REWIND_METRICS_TOKEN), so that only your monitoring reads them"
        }
        return nil
    }
    /// Room an `/app` message has beside a state of ``maxStateSize`` bytes: the event's action
    /// and its other members (1 MiB).
    public static let appMessageRoom = 1 << 20

    /// The largest message an app may send on `/app`: ``maxMessageSize``, or the largest state
    /// plus ``appMessageRoom`` when that is more (65 MiB with the defaults), so that an event
    /// carrying any state within the state limit as a keyframe is read. The server states it in
    /// `welcome` (`maxMessage`), and the recorder never sends a larger message.
    public var appMessageLimit: Int {
        max(maxMessageSize, maxStateSize.addingReportingOverflow(Self.appMessageRoom).overflow ? .max : maxStateSize + Self.appMessageRoom)
    }

    /// The deepest a session's state may nest: two levels below the parser's limit, so that the
    /// state and every patch that carries a part of it (`[{"op":…,"value":…}]`) read back.
    public static let maxStateDepth = JSONParseOptions().maxDepth - 2

    /// A configuration writing `logPath`, bound to 127.0.0.1:7433, with defaults for the rest.
    public init(logPath: String, host: String = "127.0.0.1", port: Int = 7433, webDirectory: String? = nil,
                token: String? = nil, readOnly: Bool = false, maxMessageSize: Int = 16 << 20,
                queueLimits: WebSocketQueueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 32 << 20),
                commandTimeout: Duration = .seconds(10), maxConsecutiveErrors: Int = 10) {
        self.host = host
        self.port = port
        self.logPath = logPath
        self.webDirectory = webDirectory
        self.token = token
        self.readOnly = readOnly
        self.maxMessageSize = maxMessageSize
        self.queueLimits = queueLimits
        self.commandTimeout = commandTimeout
        self.maxConsecutiveErrors = maxConsecutiveErrors
    }

    /// Why the inspector page cannot be served (``webDirectory`` is not a folder, or has no
    /// `index.html`; or this build has no page built in), in one sentence; `nil` when it can.
    /// The server starts either way: apps and inspectors over WebSocket do not need the page.
    public var inspectorPageProblem: String? {
        StaticFiles.problem(directory: webDirectory)
    }

    /// The page built into Rewind: each file of `web/` at build time, by its path
    /// (`index.html`, `js/main.js`), byte for byte.
    package static var builtInPage: [String: [UInt8]] { StaticFiles.builtIn }

    /// Whether any token is set (``token``, ``appToken`` or ``inspectToken``): then every
    /// request must carry one that opens what it asks for.
    public var hasToken: Bool {
        [token, appToken, inspectToken].contains { !($0 ?? "").isEmpty }
    }

    /// Why the tokens cannot work together, in one sentence; `nil` when they can. With any
    /// token set, streaming and inspecting must each be opened by one (``token``, or the scoped
    /// token), and no two tokens may be the same.
    public var tokenProblem: String? {
        guard hasToken else { return nil }
        let full = (token ?? "").isEmpty ? nil : token
        let app = (appToken ?? "").isEmpty ? nil : appToken
        let inspect = (inspectToken ?? "").isEmpty ? nil : inspectToken
        if let app, let inspect, app == inspect {
            return "--app-token and --inspect-token are the same; give them different values (or use --token for both)"
        }
        if let full, full == app || full == inspect {
            return "\(full == app ? "--app-token" : "--inspect-token") is the same as --token; a scoped token must differ from the server's token"
        }
        if full == nil, app == nil {
            return "--inspect-token without --token or --app-token leaves no token for apps to stream with; give --app-token or --token too"
        }
        if full == nil, inspect == nil {
            return "--app-token without --token or --inspect-token leaves no token to inspect with; give --inspect-token or --token too"
        }
        return nil
    }

    /// Whether ``host`` only accepts connections from this machine.
    public var bindsLoopbackOnly: Bool {
        let host = host.lowercased()
        return host.hasPrefix("127.") || host == "::1" || host == "localhost" || host == "lo"
    }
}
