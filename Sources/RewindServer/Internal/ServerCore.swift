import Foundation
import RewindLog
import RewindWebSocket
import RewindWire

/// The server's delegate: routes each connection's traffic to ingest or to the inspector side.
/// Every delegate method runs on the service thread and only hands work over.
final class ServerCore: WebSocketServerDelegate, @unchecked Sendable {
    /// `nil` with `--read-only`: such a server only reads, beside the log's writer.
    let writer: (any LogStoreWriter)?
    /// The other servers on a shared store (PostgreSQL): their sessions' live events and the
    /// commands for apps connected to them. `nil` on the SQLite file.
    let cluster: ClusterLink?
    let hub: InspectorHub
    let relay: CommandRelay
    let ingest: AppIngest
    let queries: InspectorQueries
    let access: AccessPolicy
    let files: StaticFiles
    let export: ExportRoute
    /// `/healthz` and `/readyz`.
    let health: Health
    /// `/metrics`, with `--metrics`.
    let metrics: ServerMetrics?
    private let metricsToken: String?

    init(configuration: RewindServerConfiguration) throws(LogError) {
        let store = configuration.logStore
        health = Health(store: store, readOnly: configuration.readOnly)
        let metrics = configuration.metrics ? ServerMetrics(store: store.isShared ? "postgres" : "sqlite") : nil
        self.metrics = metrics
        metricsToken = (configuration.metricsToken ?? "").isEmpty ? nil : configuration.metricsToken
        if !store.isShared {
            let folder = (configuration.logPath as NSString).deletingLastPathComponent
            if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        }
        // A log file takes one writer at a time (LogWriter refuses a second in one sentence); a
        // read-only server opens none, so it runs beside another server on the same log. A
        // shared store takes a writer per server, each session leased to one.
        if configuration.readOnly {
            if !store.isShared {
                guard FileManager.default.fileExists(atPath: configuration.logPath) else {
                    throw LogError(kind: .fileNotFound, message: "", path: configuration.logPath)
                }
            }
            writer = nil
        } else {
            writer = try store.openWriter()
        }
        hub = InspectorHub(metrics: metrics)
        let feed: (any LogStoreFeed)?
        do throws(LogError) {
            feed = try store.openFeed()
        } catch {
            writer?.close()
            throw error
        }
        do throws(LogError) {
            let hub = self.hub
            // The other instances first: the app side and the relay are handed them at init.
            if let feed { cluster = try ClusterLink(feed: feed, store: store, hub: hub, metrics: metrics) } else { cluster = nil }
            relay = CommandRelay(timeout: configuration.commandTimeout, cluster: cluster)
            ingest = try AppIngest(writer: writer, store: store, hub: hub, relay: relay, cluster: cluster, metrics: metrics,
                                   log: configuration.log,
                                   maxErrors: configuration.maxConsecutiveErrors,
                                   maxStateSize: configuration.maxStateSize, maxMessageSize: configuration.appMessageLimit)
            queries = try InspectorQueries(
                store: store, hub: hub, relay: relay, ingest: ingest,
                readOnly: configuration.readOnly, maxErrors: configuration.maxConsecutiveErrors,
                limits: InspectorQueries.Limits(maxReplyBytes: configuration.queueLimits.maxBytes,
                                                maxInFlight: configuration.maxRequestsInFlight,
                                                queryTimeBudget: configuration.queryTimeBudget),
                metrics: metrics)
            export = try ExportRoute(store: store,
                                     limits: ExportRoute.Limits(maxConcurrent: configuration.maxConcurrentExports,
                                                                stallTimeout: configuration.exportStallTimeout))
        } catch {
            writer?.close()
            throw error
        }
        if let cluster {
            do throws(LogError) {
                try cluster.start(ingest: ingest, relay: relay)
            } catch {
                writer?.close()
                throw error
            }
        }
        let notice = configuration.notice
        let log = configuration.log
        access = AccessPolicy(token: configuration.token, appToken: configuration.appToken, inspectToken: configuration.inspectToken,
                              failures: TokenFailures { sentence in
                                  notice?(sentence)
                                  log?(ServerLogEntry(level: .warning, event: "token-refused", message: sentence))
                              })
        files = StaticFiles(directory: configuration.webDirectory, secure: configuration.tls != nil)
        let (ingest, queries, cluster) = (self.ingest, self.queries, self.cluster)
        metrics?.setGauges { gauges in
            gauges.sessionsLive = { ingest.liveSessionCount }
            gauges.ingestQueueDepth = { ingest.queuedMessageCount }
            gauges.queriesInFlight = { queries.inFlightCount }
            if let cluster { gauges.feedLag = { cluster.feedLagSeconds } }
        }
    }

    /// Finishes the events received, then commits and closes the log.
    func close() {
        cluster?.stop()
        ingest.drain()
        writer?.close()
    }

    func refusal(of request: WebSocketUpgradeRequest) -> WebSocketRefusal? {
        access.refusal(of: request)
    }

    func didOpen(_ connection: WebSocketConnection) {
        if connection.path == InspectorRequest.path {
            hub.add(connection)
            metrics?.inspectorConnected(1)
        } else {
            metrics?.appConnected(1)
        }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        if case .binary = message {
            // The protocol is JSON text; a binary frame is not processed, whatever it holds.
            connection.close(code: .unsupportedData, reason: "this endpoint takes JSON text messages only")
            return
        }
        if connection.path == AppMessage.path {
            ingest.receive(message.bytes, from: connection)
        } else {
            queries.receive(message.bytes, from: connection)
        }
    }

    func didFinishServicePass(readLittle: Bool) {
        ingest.servicePassEnded(readLittle: readLittle)
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        if connection.path == AppMessage.path {
            ingest.closed(connection)
            metrics?.appConnected(-1)
        } else {
            hub.remove(connection)
            queries.closed(connection)
            metrics?.inspectorConnected(-1)
        }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if let answer = health.answer(request) { return answer }
        if request.path == ServerMetrics.path, let metrics { return metricsAnswer(request, metrics) }
        switch access.checkPage(request) {
        case .refused:
            return .text("this server needs its token: open the address `rewind serve` printed (it ends in ?token=…)\n", status: 401)
        case .slowed(let seconds):
            return .text(AccessPolicy.slowedSentence(seconds) + "\n", status: 429)
        case .wrongScope(let sentence):
            return .text(sentence + "\n", status: 403)
        case .foreignHost:
            return .text("this server answers only requests for 127.0.0.1, localhost or [::1] (Host was \(request.headers["host"] ?? "missing")); open the address `rewind serve` printed\n", status: 421)
        case .allowed(let setCookie):
            var response = ExportRoute.handles(request) ? export.respond(to: request) : files.respond(to: request)
            if let setCookie { response.headers.add("Set-Cookie", setCookie) }
            return response
        }
    }

    /// `GET /metrics`: with a metrics token, only for a request that bears it; without one, the
    /// server listens on this machine alone (``RewindServerConfiguration/metricsProblem``).
    private func metricsAnswer(_ request: HTTPRequest, _ metrics: ServerMetrics) -> HTTPResponse {
        if let metricsToken, request.headers["authorization"] != "Bearer " + metricsToken {
            return .text("the metrics need their token: send Authorization: Bearer METRICS_TOKEN\n", status: 401)
        }
        return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(metrics.render().utf8))
    }
}
