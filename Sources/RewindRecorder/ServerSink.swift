import Foundation
import RewindJSON
import RewindWire

/// Streams sessions to `rewind serve` over a WebSocket (`/app`, subprotocol `rewind.app.v1`)
/// and performs the commands the server relays from inspectors.
///
/// ```swift
/// store.record(to: .server(URL(string: "ws://127.0.0.1:7433")!), app: "MyApp")
/// // or beside a local file:
/// store.record(to: .sinks([ServerSink(url: url), LogFileSink(path: "/tmp/app.db")]), app: "MyApp")
/// ```
///
/// Each session gets its own connection: `hello`, then `welcome`, then its events (seq 0 as a
/// keyframe, the rest as patches). Every event is kept until the server acknowledges it. After a
/// close or a failed connect the sink reconnects (0.1 s doubling to 5 s, with jitter), says
/// `hello` again with the last acknowledged seq and resends from the `nextSeq` the server
/// answers; the server drops what it already has, so each event is stored once.
///
/// While the server is away, at most `capacity` unacknowledged events keep their state change.
/// Past that, the older ones give up their patches (they are resent `coalesced`, changing
/// nothing) and the newest carries the whole state, so actions are never lost and memory stays
/// bounded by one state plus the actions. Nothing here waits on the network: the recorder's
/// thread only appends, and the app is never slowed.
///
/// A ``Store`` that records to a server sink performs its commands (jump, resume, dispatch,
/// replay, pause). With another store, give the sink a handler: ``onCommand(_:)``.
public final class ServerSink: RecordingSink, @unchecked Sendable {
    /// Performs one command and says how it went.
    public typealias CommandHandler = @Sendable (Command) async -> AppMessage.CommandResult

    /// The server's `/app` address.
    public let url: URL
    /// The most unacknowledged events of a session that keep their state change.
    public let capacity: Int
    /// How long ``flush()`` waits for acknowledgements.
    public let flushTimeout: Duration
    /// What carries the connection (URLSession on Apple platforms, libwebsockets on Linux).
    public let transport: ServerTransport
    private let request: TransportRequest
    private let report: (@Sendable (String) -> Void)?
    private let lock = NSLock()
    /// Held from deciding a report to making it, so reports reach `report` in the order they
    /// were decided (the timer's and the link's failures come from different threads).
    private let reportOrder = NSLock()
    // Guarded by `lock`.
    private var links: [String: ServerLink] = [:]
    private var handler: Handler?
    private enum Handler {
        case anywhere(CommandHandler)
        case mainActor(@MainActor @Sendable (Command) async -> AppMessage.CommandResult)
    }
    private var lastFlushAcked = true
    /// Ended sessions whose delivery ``waitUntilEnded(timeout:)`` has not yet seen complete.
    private var ending: [ServerLink] = []
    /// Why `url` cannot be used, when it cannot.
    private let addressProblem: String?
    /// The kind of failure last reported (a report repeats only when the kind changes).
    private var reportedKind: ConnectFailure.Kind?
    private var latestFailure: String?
    private var latestReport: String?
    /// A connect failed in a way no retry can fix (this transport cannot run here).
    private var gaveUp = false
    /// Attempts of the links already let go.
    private var retiredAttempts = 0

    /// A sink for the server at `url`: `ws://host:port/app` (`/app` is added when no path is
    /// given), or the address `rewind serve` prints for the browser, `http://host:port/`, which
    /// means the same server (its `?token=` is used when `token` is `nil`). Any other scheme
    /// (`wss`, `https`), no host, or another path is reported in one sentence when a session
    /// begins, and the sink then sends nothing.
    ///
    /// - Parameters:
    ///   - token: sent as `Authorization: Bearer <token>` when the server requires one.
    ///   - capacity: unacknowledged events kept with their state change (the recorder's bound).
    ///   - flushTimeout: how long ``flush()`` waits for the server to acknowledge.
    ///   - transport: what opens the WebSocket; the platform's own by default.
    ///   - report: hears one sentence, with the URL and the reason, when connecting fails:
    ///     refused, unreachable, timed out (also when the first attempt has no answer within 2 s)
    ///     or a wrong token. Once, and again only when the reason changes. Standard error by
    ///     default, `nil` for silence.
    public init(url: URL, token: String? = nil, capacity: Int = 10_000, flushTimeout: Duration = .seconds(2),
                transport: ServerTransport = .automatic,
                report: (@Sendable (String) -> Void)? = ServerSink.reportToStandardError) {
        var url = url
        var token = token
        switch ServerAddress.resolve(url) {
        case .success(let resolved):
            url = resolved.url
            token = token ?? resolved.token
            addressProblem = nil
        case .failure(let problem):
            addressProblem = problem.message
        }
        self.url = url
        self.capacity = max(1, capacity)
        self.flushTimeout = flushTimeout
        self.transport = transport
        self.report = report
        // The connection's queue holds more than the sink keeps, so it fills only when the
        // server stops reading; the sink then reconnects and resends.
        request = TransportRequest(url: url, subprotocol: AppMessage.subprotocol, token: token,
                                   maxQueuedMessages: self.capacity * 2 + 64, maxQueuedBytes: 256 << 20)
    }

    deinit {
        for link in links.values { link.abandon() }
    }

    /// Performs the commands the server relays with `handler` (replacing the store's, if any).
    public func onCommand(_ handler: @escaping CommandHandler) {
        lock.withLock { self.handler = .anywhere(handler) }
    }

    /// As ``onCommand(_:)``, for a handler isolated to the main actor (a `Store`'s): each command
    /// goes from the connection's thread straight to the main actor, so a command reaches the
    /// store even while every thread of Swift's shared pool is busy.
    package func onMainActorCommand(_ handler: @escaping @MainActor @Sendable (Command) async -> AppMessage.CommandResult) {
        lock.withLock { self.handler = .mainActor(handler) }
    }

    /// Opens the session's connection (in the background; the first events wait for it).
    public func begin(_ session: RecordingSession) throws {
        if let addressProblem {
            didFail(TransportFailure(reason: addressProblem, isPermanent: true), kind: .unsupported, sentence: addressProblem)
            return
        }
        let link = ServerLink(
            session: session, transport: transport, request: request, capacity: capacity,
            commands: { [weak self] command, link in self?.perform(command, replyingOn: link) },
            failures: { [weak self] failure in self?.didFail(failure) })
        lock.lock()
        links[session.uuid]?.stop()
        links[session.uuid] = link
        lock.unlock()
        link.connect()
        // A first attempt with no answer within 2 s is said at once; it goes on trying.
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [weak self, weak link] in
            guard let self, let link else { return }
            let status = link.status
            guard status.connections == 0, !status.finished else { return }
            self.didFail(TransportFailure(reason: "no answer within 2 s; still trying"), kind: .timedOut, onlyIfFirst: true)
        }
    }

    /// Keeps the events and sends them when the session's connection is up.
    public func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        link(for: session.uuid)?.append(events)
    }

    /// Waits up to ``flushTimeout`` for the server to acknowledge everything written so far.
    ///
    /// It never throws, and it returns at once while the server is away (the sink is waiting to
    /// reconnect): a missing server must neither stop the recording nor hold the app, which
    /// flushes when it stops recording. Whether everything was acknowledged is
    /// ``lastFlushAcknowledged``; ``waitForAcknowledgements(timeout:)`` waits through outages.
    public func flush() throws {
        let acked = waitForAcks(timeout: flushTimeout, throughOutages: false)
        lock.lock()
        lastFlushAcked = acked
        lock.unlock()
    }

    /// Says `end` once the server holds every event of the session; until then the sink keeps
    /// reconnecting to deliver them.
    public func end(_ session: RecordingSession, at date: Date) throws {
        lock.lock()
        let link = links[session.uuid]
        // Links over by now need no waiting: keep only those still delivering, so an app that
        // records session after session does not keep every finished one.
        ending.removeAll { $0.isOver }
        if let link { ending.append(link) }
        lock.unlock()
        link?.end()
    }

    /// Waits until every ended session has been delivered: all its events acknowledged, `end`
    /// written to the socket and the connection closed. A process that exits right after ending
    /// its recording calls this so its last message is not cut off; `false` if `timeout` passed
    /// first (the server is away, say).
    @discardableResult
    public func waitUntilEnded(timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        lock.lock()
        let ending = self.ending
        lock.unlock()
        var delivered: [ServerLink] = []
        for link in ending where link.waitUntilDelivered(until: deadline) { delivered.append(link) }
        lock.lock()
        self.ending.removeAll { link in delivered.contains { $0 === link } }
        let allDelivered = self.ending.isEmpty
        lock.unlock()
        return allDelivered
    }

    /// Waits until the server has acknowledged every event written so far; `false` on timeout.
    @discardableResult
    public func waitForAcknowledgements(timeout: Duration) -> Bool {
        waitForAcks(timeout: timeout, throughOutages: true)
    }

    private func waitForAcks(timeout: Duration, throughOutages: Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        lock.lock()
        let links = Array(self.links.values)
        lock.unlock()
        // A transport that cannot run here gave up: what it held is not acknowledged.
        var acked = !lock.withLock { gaveUp }
        for link in links where !link.waitForAcks(until: deadline, throughOutages: throughOutages) { acked = false }
        return acked
    }

    /// Closes every connection and stops reconnecting; unacknowledged events are dropped.
    public func disconnect() {
        lock.lock()
        let links = Array(self.links.values)
        self.links.removeAll()
        lock.unlock()
        for link in links { link.stop() }
    }

    /// Whether the last ``flush()`` saw every event acknowledged.
    public var lastFlushAcknowledged: Bool {
        lock.lock()
        defer { lock.unlock() }
        return lastFlushAcked
    }

    // The counts below cover the sessions the sink still serves (not those whose `end` the
    // server has received).

    /// `true` while a session's connection is welcomed and streaming.
    public var isConnected: Bool { statuses.contains { $0.connected } }
    /// Events written but not yet acknowledged, over all sessions.
    public var unacknowledgedCount: Int { statuses.reduce(0) { $0 + $1.unacked } }
    /// Events whose state change was dropped to stay within ``capacity`` (sent `coalesced`).
    public var droppedStateCount: Int { statuses.reduce(0) { $0 + $1.droppedStates } }
    /// Connections welcomed so far, over all sessions (the first one and every reconnect).
    public var connectionCount: Int { statuses.reduce(0) { $0 + $1.connections } }

    /// The last `error` the server sent (a refused event, a protocol problem), or the sentence
    /// about the last event kept from the server because it would refuse it (a state over its
    /// `--max-state`, a message over its largest), if any.
    public var lastServerError: String? { statuses.lazy.compactMap(\.lastError).first }

    /// Why the last failed connection attempt failed (the server refused the upgrade, nothing
    /// listens, …), if one has failed.
    public var lastConnectFailure: String? { lock.withLock { latestFailure } }

    /// The last sentence reported about a failed connect, with the URL and what to do (what
    /// `report` was given), if one was.
    public var lastConnectReport: String? { lock.withLock { latestReport } }

    /// Connection attempts made so far, over all sessions (each retry counts).
    var connectAttempts: Int {
        // Finished links are let go (and their attempts kept aside) as the statuses are read.
        let current = statuses.filter { !$0.finished }.reduce(0) { $0 + $1.attempts }
        return current + lock.withLock { retiredAttempts }
    }

    /// The sessions' statuses; links that delivered their whole session are let go.
    private var statuses: [ServerLinkStatus] {
        lock.lock()
        let links = self.links
        lock.unlock()
        let statuses = links.mapValues(\.status)
        let finished = statuses.filter { $0.value.finished }.map(\.key)
        if !finished.isEmpty {
            lock.lock()
            for uuid in finished where self.links[uuid] === links[uuid] {
                self.links[uuid] = nil
                retiredAttempts += statuses[uuid]?.attempts ?? 0
            }
            lock.unlock()
        }
        return Array(statuses.values)
    }

    private func link(for uuid: String) -> ServerLink? {
        lock.lock()
        defer { lock.unlock() }
        return links[uuid]
    }

    /// Reports a failed connect: the first one, then again only when the kind of failure changes.
    /// With `onlyIfFirst`, nothing happens once any failure was reported (decided under the
    /// same lock as the report, so a failure the link reports meanwhile is never followed by it).
    private func didFail(_ failure: TransportFailure, kind: ConnectFailure.Kind? = nil, sentence: String? = nil,
                         onlyIfFirst: Bool = false) {
        if failure.withheldEvent {
            // Not a connect failure: an event over the server's limits was kept from it (the
            // link says so once per run of such events; `lastServerError` has the sentence).
            reportOrder.withLock { report?(failure.reason) }
            return
        }
        let connectFailure = ConnectFailure(reason: failure.reason, kind: kind)
        let text = sentence ?? connectFailure.sentence(url: url)
        reportOrder.lock()
        defer { reportOrder.unlock() }
        let changed = lock.withLock {
            if onlyIfFirst && reportedKind != nil { return false }
            latestFailure = failure.reason
            if failure.isPermanent { gaveUp = true }
            defer { reportedKind = connectFailure.kind }
            guard reportedKind != connectFailure.kind else { return false }
            latestReport = text
            return true
        }
        guard changed, let report else { return }
        report(text)
    }

    /// Writes a sentence to standard error, prefixed `rewind:`, as a console line.
    public static let reportToStandardError: @Sendable (String) -> Void = { sentence in
        FileHandle.standardError.write(Data("rewind: \(sentence)\n".utf8))
    }

    /// Runs the handler off the service thread and sends its result back.
    private func perform(_ command: Command, replyingOn link: ServerLink) {
        switch lock.withLock({ handler }) {
        case .mainActor(let handler):
            Task { @MainActor in link.reply(await handler(command)) }
        case .anywhere(let handler):
            Task { link.reply(await handler(command)) }
        case nil:
            Task { link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this app does not take commands")) }
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
