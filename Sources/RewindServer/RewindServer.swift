import Foundation
import RewindLog
import RewindSupport
import RewindWebSocket
import RewindWire

/// `rewind serve`: takes apps' events on `/app` into the log, streams them to inspectors on
/// `/inspect`, answers their queries, relays their commands and serves the inspector page.
///
/// ```swift
/// let server = try RewindServer(configuration: RewindServerConfiguration(logPath: path))
/// try server.start()
/// print(server.inspectorURL!)   // http://127.0.0.1:7433/
/// …
/// server.shutdown()             // stop accepting, close with 1001, flush the log
/// ```
///
/// Who runs what (Docs/Architecture.md has the whole table):
/// - The libwebsockets service thread (`rewind-ws-serve`) does every socket read and write and
///   only hands work over: an app's message to ingest, an inspector's request to the queries,
///   an HTTP request to the page's files or an export.
/// - Ingest, one serial queue for every app (`rewind.server.ingest`), drains a fair inbox (a
///   FIFO per app connection, one message of each per round; a connection too far ahead is not
///   read until it catches up), opens and resumes sessions, checks each event and pushes it at
///   once to the inspectors subscribed to it, and hands the events to the log's writer thread
///   (`rewind-writer`) in batches. The writer's completion of each commit sends the app its ack,
///   on the writer thread.
/// - Queries run on a concurrent queue (`rewind.server.queries`), inspectors taking turns one
///   request each, on a pool of three log readers (at most two of them scanning). Requests over
///   an inspector's limit are refused on a serial queue of their own (`rewind.server.refusals`).
/// - An inspector too slow for its live events misses them: it is checked every 20 ms on
///   `rewind.server.lag` until its output has drained, then told `lagged`.
/// - A command relayed to an app fails with `command-failed` after `--command-timeout`, on a timer
///   of the global dispatch queue, unless the app has answered.
/// - An export finds its session and streams it on threads of its own (`rewind-ws-http`,
///   `rewind-ws-body`), on readers of its own.
public final class RewindServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: RewindServerConfiguration
    private let state = Mutex<Running?>(nil)

    private struct Running: @unchecked Sendable {
        var socket: WebSocketServer
        var core: ServerCore
        var stopped = false
    }

    /// A server for `configuration`; refuses a non-loopback host without a token before anything
    /// listens.
    public init(configuration: RewindServerConfiguration) throws(RewindServerError) {
        if let problem = configuration.tokenProblem { throw .tokens(problem) }
        if let problem = configuration.metricsProblem { throw .tokens(problem) }
        if !configuration.bindsLoopbackOnly && !configuration.hasToken {
            throw .tokenRequired(host: configuration.host)
        }
        self.configuration = configuration
    }

    /// Opens the log, binds the port and starts serving; returns once listening.
    public func start() throws(RewindServerError) {
        let configuration = self.configuration
        let alreadyStarted = state.withLock { $0 != nil }
        if alreadyStarted { throw .alreadyStarted }
        let core: ServerCore
        do {
            core = try ServerCore(configuration: configuration)
        } catch {
            throw .log(error)
        }
        var socketConfiguration = WebSocketServerConfiguration(
            host: configuration.host, port: configuration.port,
            endpoints: [
                WebSocketEndpoint(path: AppMessage.path, subprotocol: AppMessage.subprotocol,
                                  maxMessageSize: configuration.appMessageLimit),
                WebSocketEndpoint(path: InspectorRequest.path, subprotocol: InspectorRequest.subprotocol),
            ],
            maxMessageSize: configuration.maxMessageSize)
        socketConfiguration.queueLimits = configuration.queueLimits
        socketConfiguration.maxQueuedBytesTotal = configuration.maxQueuedOutput
        socketConfiguration.receiveGathering = configuration.receiveGathering
        socketConfiguration.tls = configuration.tls
        let socket = WebSocketServer(configuration: socketConfiguration, delegate: core)
        // Read at a scrape, on the service thread; the socket outlives no scrape.
        core.metrics?.setGauges { $0.traffic = { [weak socket] in socket?.traffic ?? (0, 0) } }
        do {
            try socket.start()
        } catch {
            core.close()
            throw .webSocket(error)
        }
        state.withLock { $0 = Running(socket: socket, core: core) }
    }

    /// The running server's log writer (tests use it to make the log refuse writes).
    package var logWriter: LogWriter? {
        state.withLock { $0?.core.writer as? LogWriter }
    }

    /// The port listened on, once started.
    public var port: Int? {
        state.withLock { $0?.socket.port }
    }

    /// When the TLS certificate served stops being valid (its `notAfter`), with TLS.
    public var certificateExpiry: Date? {
        guard let path = configuration.tls?.certificatePath, case .success(let file) = TrustedCAFile.load(path),
              let der = file.derCertificates.first else { return nil }
        return CertificateValidity.notAfter(der: der)
    }

    /// A warning about the certificate served, or `nil`: expired (clients refuse it), or ending
    /// within `soon` (14 days by default), said with its date.
    public func certificateWarning(now: Date = Date(), soon: TimeInterval = 14 * 86_400) -> String? {
        guard let expiry = certificateExpiry, let path = configuration.tls?.certificatePath else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime, .withTimeZone]
        let when = formatter.string(from: expiry)
        if expiry <= now {
            return "the certificate \(path) expired on \(when): clients that check it refuse every connection; renew it and restart"
        }
        if expiry.timeIntervalSince(now) < soon {
            let days = Int(expiry.timeIntervalSince(now) / 86_400)
            return "the certificate \(path) expires on \(when), in \(days == 0 ? "less than a day" : days == 1 ? "1 day" : "\(days) days"); renew it before then"
        }
        return nil
    }

    /// The inspector page's address (`https` with TLS), with `?token=` when the server has a
    /// token that opens it (the inspect token before the full one); `nil` before start.
    /// This instance's id among the others on a team store (what its bus messages say they are
    /// from); `nil` on a log file, or before it started.
    public var instanceID: String? {
        state.withLock { $0?.core.cluster?.instance }
    }

    public var inspectorURL: String? {
        guard let port else { return nil }
        var host = configuration.host
        if host == "0.0.0.0" || host == "::" || host == "lo" { host = "127.0.0.1" }
        if host.contains(":") { host = "[\(host)]" }
        var url = "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)/"
        if let token = [configuration.inspectToken, configuration.token].compactMap({ $0 }).first(where: { !$0.isEmpty }) {
            url += "?token=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
        }
        return url
    }

    /// How many app connections have said hello and are streaming.
    public var liveAppCount: Int {
        state.withLock { $0?.core.ingest.liveSessionIDs().count ?? 0 }
    }

    /// How many inspector connections are open (the page, `rewind tail`, other clients of `/inspect`).
    public var inspectorCount: Int {
        state.withLock { $0?.core.hub.count ?? 0 }
    }

    /// How many exports are running: finding their session or streaming it (at most
    /// ``RewindServerConfiguration/maxConcurrentExports``).
    public var activeExportCount: Int {
        state.withLock { $0?.core.export.activeCount ?? 0 }
    }

    /// What the streamed HTTP responses (the exports) hold: producers running, bytes waiting to
    /// be sent, and the most that ever waited at once.
    public var streamStatistics: HTTPStreamStatistics {
        state.withLock { $0?.socket.streamStatistics } ?? HTTPStreamStatistics()
    }

    /// Stops accepting, closes every connection with 1001, finishes the events already received
    /// and flushes the log. Returns when it is done; calling it again does nothing.
    public func shutdown() {
        let running = state.withLock { running -> Running? in
            guard let current = running, !current.stopped else { return nil }
            running?.stopped = true
            return current
        }
        guard let running else { return }
        running.socket.shutdown(closeCode: .goingAway)
        running.core.close()
    }
}
