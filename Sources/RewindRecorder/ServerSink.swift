import Foundation
import RewindJSON
import RewindLog
import RewindSupport
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
/// With a local log (`localLog`, which ``RecordingDestination/server(_:token:)`` and
/// ``RecordingDestination/automatic`` give it), every event goes into that file on the device
/// first (store and forward): what the server has not acknowledged when the app exits (the
/// server down or unreachable, the token wrong, the app killed) stays there, and the next sink of
/// this app that reaches the server delivers it first, each session resumed from the server's
/// `nextSeq`. `rewind push` does the same from the terminal.
///
/// With fallbacks (``init(url:fallbacks:token:caFile:capacity:flushTimeout:transport:localLog:localLogLimit:report:)``,
/// ``RecordingDestination/servers(_:token:caFile:)``, a `REWIND_SERVER` list), the servers are
/// equivalent ones tried in order: a session stays on the one that works and moves to the next
/// when a connect fails, its connection closes or the server cannot store (`read-only`,
/// `storage`), never for a refused event (any server would refuse it). After a round in which
/// no server answered, the backoff applies. A new session starts on the server the last welcome
/// came from (``currentServer``). Wherever a session lands it resumes from that server's
/// `nextSeq`; a server on a log of its own that lacks what another acknowledged gets those
/// events again from the local log.
///
/// A ``Store`` recording with `commands: .accepted`, and a ``StoreLink``, perform the commands a
/// server sink relays (jump, resume, dispatch, replay, pause, branch). With the plain
/// ``Recorder``, give the sink a handler: ``onCommand(_:)``.
public final class ServerSink: SessionSink, @unchecked Sendable {
    /// Performs one command and says how it went.
    public typealias CommandHandler = @Sendable (Command) async -> CommandResult

    /// The server's `/app` address (the first of ``servers``).
    public let url: URL
    /// Every server's `/app` address, in the order they are tried: ``url``, then the fallbacks.
    public let servers: [URL]
    /// The most unacknowledged events of a session that keep their state change.
    package let capacity: Int
    /// How long ``flush()`` waits for acknowledgements.
    package let flushTimeout: Duration
    /// What carries the connection (URLSession on Apple platforms, libwebsockets on Linux).
    package let transport: ServerTransport
    /// The CA certificate file trusted for `wss` besides the system's, if any (for every server).
    package let caFile: String?
    /// One per server, in ``servers``' order.
    private let requests: [TransportRequest]
    private let report: (@Sendable (String) -> Void)?
    /// Held from deciding a report to making it, so reports reach `report` in the order they
    /// were decided (the timer's and the link's failures come from different threads).
    private let reportOrder = Mutex()
    private let shared = Mutex(Shared())
    /// The server the last welcome came from (an index in `servers`): new sessions start there.
    /// A lock of its own, taken last (a link sets it while holding its own lock, and nothing is
    /// locked while it is held; `shared`'s is held while links are stopped), so the welcome is
    /// known before any ack it is followed by.
    private let welcomedServer = Mutex<Int?>(nil)
    private enum Handler {
        case anywhere(@Sendable (Command) async -> AppMessage.CommandResult)
        case mainActor(@MainActor @Sendable (Command) async -> AppMessage.CommandResult)
    }
    /// Why the servers (or the CA file) cannot be used, when they cannot.
    private let addressProblem: String?
    private let outboxFolder: String?
    private let outboxLimit: Int64

    private struct Shared {
        var links: [String: ServerLink] = [:]
        var handler: Handler?
        var lastFlushAcked = true
        /// Ended sessions whose delivery ``waitUntilEnded(timeout:)`` has not yet seen complete.
        var ending: [ServerLink] = []
        /// The kind of failure last reported, per server (a report repeats only when its
        /// server's kind changes).
        var reportedKinds: [URL: ConnectFailure.Kind] = [:]
        var latestFailure: String?
        var latestReport: String?
        /// A connect failed in a way no retry can fix (this transport cannot run here).
        var gaveUp = false
        /// Attempts of the links already let go.
        var retiredAttempts = 0
        /// The device's copy of what is streamed, when the sink keeps one (made at the first
        /// session, which names the app).
        var outbox: Outbox?
        /// Sessions of earlier runs being delivered from the local log.
        var catchingUp: [ServerLink] = []
        var caughtUp = false
        /// The last trouble with the local log or the server's refusals, in one sentence.
        var localProblem: String?
        /// How far the server got with sessions whose links were let go: acked through, last seq.
        var finals: [String: (acked: Int64, last: Int64)] = [:]
    }

    /// A sink for the server at `url`: `ws://host:port/app` (`/app` is added when no path is
    /// given), or the address `rewind serve` prints for the browser, `http://host:port/`, which
    /// means the same server (its `?token=` is used when `token` is `nil`). Any other scheme
    /// (`wss://` and `https://` mean TLS), no host, or another path is reported in one sentence
    /// when a session begins, and the sink then sends nothing.
    ///
    /// - Parameters:
    ///   - fallbacks: more servers, equivalent to `url` (a team's instances on one database),
    ///     written as `url` is: tried in order when one is down. A wrong one, or one named twice,
    ///     is reported like a wrong `url`, naming its position.
    ///   - token: sent as `Authorization: Bearer <token>` when the server requires one (to every
    ///     server; one whose address has its own `?token=` gets that one when this is `nil`).
    ///   - caFile: for `wss`, a CA certificate (PEM or DER file) to trust besides the system's,
    ///     for a server whose certificate a private CA signed (the same file for every server:
    ///     a list is one deployment). A file that cannot be read or is no certificate is one
    ///     sentence when a session begins, and the sink sends nothing.
    ///   - capacity: unacknowledged events kept with their state change (the recorder's bound).
    ///   - flushTimeout: how long a recorder's flush waits for the server to acknowledge.
    ///   - report: hears one sentence, with the URL and the reason, when connecting fails:
    ///     refused, unreachable, timed out (also when the first attempt has no answer within 2 s)
    ///     or a wrong token. Once per server, and again only when its reason changes. Standard
    ///     error by default, `nil` for silence.
    ///   - localLog: a folder for the device's copy of every event (store and forward; one
    ///     file per app and first server in it, at most `localLogLimit` bytes), or `nil` to keep
    ///     unacknowledged events in memory only.
    public convenience init(url: URL, fallbacks: [URL] = [], token: String? = nil, caFile: String? = nil, capacity: Int = 10_000,
                            flushTimeout: Duration = .seconds(2), localLog: String? = nil, localLogLimit: Int64 = 256 << 20,
                            report: (@Sendable (String) -> Void)? = ServerSink.reportToStandardError) {
        self.init(url: url, fallbacks: fallbacks, token: token, caFile: caFile, capacity: capacity, flushTimeout: flushTimeout,
                  transport: .automatic, localLog: localLog, localLogLimit: localLogLimit, report: report)
    }

    /// As the public initializer, over a chosen transport (each runs only where it is built for:
    /// the tests choose libwebsockets or URLSession on Linux).
    package init(url: URL, fallbacks: [URL] = [], token: String? = nil, caFile: String? = nil, capacity: Int = 10_000,
                 flushTimeout: Duration = .seconds(2), transport: ServerTransport,
                 localLog: String? = nil, localLogLimit: Int64 = 256 << 20,
                 report: (@Sendable (String) -> Void)? = ServerSink.reportToStandardError) {
        let addresses: [(url: URL, token: String?)]
        var problem: String?
        switch ServerAddress.resolve(list: [url] + fallbacks) {
        case .success(let resolved):
            addresses = resolved
        case .failure(let unusable):
            // Nothing is sent; the addresses stand as given, for the sentences that name them.
            addresses = ([url] + fallbacks).map { ($0, nil) }
            problem = unusable.message
        }
        self.caFile = caFile
        if problem == nil, let caFile, case .failure(let unreadable) = TrustedCAFile.load(caFile) {
            problem = unreadable.message
        }
        addressProblem = problem
        self.url = addresses[0].url
        servers = addresses.map(\.url)
        outboxFolder = localLog
        outboxLimit = localLogLimit
        self.capacity = max(1, capacity)
        self.flushTimeout = flushTimeout
        self.transport = transport
        self.report = report
        // The connection's queue holds more than the sink keeps, so it fills only when the
        // server stops reading; the sink then reconnects and resends.
        let queued = self.capacity * 2 + 64
        requests = addresses.map { address in
            TransportRequest(url: address.url, subprotocol: AppMessage.subprotocol, token: token ?? address.token, caFile: caFile,
                             maxQueuedMessages: queued, maxQueuedBytes: 256 << 20)
        }
    }

    deinit {
        for link in shared.withLock({ $0.links.values }) { link.abandon() }
    }

    /// Performs the commands the server relays with `handler` (replacing the store's, if any);
    /// the sink answers each with what `handler` returns.
    public func onCommand(_ handler: @escaping CommandHandler) {
        shared.withLock { $0.handler = .anywhere({ command in await handler(command).wire(id: command.id) }) }
    }

    /// As ``onCommand(_:)``, for a handler isolated to the main actor (a `Store`'s): each command
    /// goes from the connection's thread straight to the main actor, so a command reaches the
    /// store even while every thread of Swift's shared pool is busy.
    package func onMainActorCommand(_ handler: @escaping @MainActor @Sendable (Command) async -> AppMessage.CommandResult) {
        shared.withLock { $0.handler = .mainActor(handler) }
    }

    /// Opens the session's connection (in the background; the first events wait for it).
    package func begin(_ session: RecordingSession) throws {
        if let addressProblem {
            didFail(TransportFailure(reason: addressProblem, isPermanent: true), server: url, kind: .unsupported, sentence: addressProblem)
            return
        }
        // The device's copy first: once it is committed the events survive whatever happens.
        let (outbox, localID) = keepLocally(session)
        var acknowledged: (@Sendable (Int64, URL) -> Void)?
        var history: (@Sendable (Int64, Int64) throws -> [LogEvent])?
        if let outbox, let localID {
            acknowledged = { seq, server in outbox.acknowledged(session: localID, through: seq, by: server.absoluteString) }
            history = { from, before in try outbox.events(session: localID, from: from, before: before) }
        }
        let link = ServerLink(
            session: session, transport: transport, requests: requests, startAt: startingServer, capacity: capacity,
            commands: { [weak self] command, link in self?.perform(command, replyingOn: link) },
            failures: { [weak self] failure, server in self?.didFail(failure, server: server) },
            acknowledged: acknowledged, history: history,
            welcomed: { [weak self] index in self?.didWelcome(on: index) })
        shared.withLock { shared in
            shared.links[session.uuid]?.stop()
            shared.links[session.uuid] = link
        }
        if let outbox { catchUp(outbox, app: session.app) }
        link.connect()
        // A first attempt with no answer within 2 s is said at once; it goes on trying.
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [weak self, weak link] in
            guard let self, let link else { return }
            let status = link.status
            guard status.connections == 0, !status.finished else { return }
            let still = self.servers.count > 1 ? "still trying it and the others" : "still trying"
            self.didFail(TransportFailure(reason: "no answer within 2 s; \(still)"), server: status.server, kind: .timedOut, onlyIfFirst: true)
        }
    }

    /// Where a new session connects first: the server the last welcome came from, else the first.
    private var startingServer: Int { welcomedServer.withLock { $0 ?? 0 } }

    /// A session's connection was welcomed by `servers[index]`.
    private func didWelcome(on index: Int) {
        welcomedServer.withLock { $0 = index }
    }

    /// The server the sink's sessions last reached (the latest welcome, on any of its
    /// connections), or `nil` before any did. With fallbacks, the one it moved to.
    package var currentServer: URL? { welcomedServer.withLock { $0 }.map { servers[$0] } }

    /// Keeps the events (in the local log, when the sink has one, and in memory) and sends them
    /// when the session's connection is up.
    package func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        shared.withLock { $0.outbox }?.write(events, of: session)
        link(for: session.uuid)?.append(events)
    }

    /// Opens the local log (once) and records the session in it; a local log that cannot be
    /// used is said once, and the session streams from memory only.
    private func keepLocally(_ session: RecordingSession) -> (Outbox?, Int64?) {
        guard let folder = outboxFolder else { return (nil, nil) }
        let outbox = shared.withLock { shared -> Outbox in
            if let outbox = shared.outbox { return outbox }
            // The first server's file: a list is one deployment, and an app that adds fallbacks
            // behind the server it used keeps what it still owes it.
            let made = Outbox(path: Outbox.path(folder: folder, app: session.app, server: url), server: url.absoluteString,
                              limitBytes: outboxLimit)
            shared.outbox = made
            return made
        }
        do {
            let id = try outbox.begin(session)
            return (outbox, id)
        } catch {
            sayLocalProblem("cannot keep the events on this device in \(outbox.path) (\(error)); they are kept in memory until the server has them")
            return (nil, nil)
        }
    }

    /// Delivers, once per sink, the earlier sessions of this app that the server lacks: each on
    /// its own connection, resumed from the server's `nextSeq`. The local log is then kept
    /// within its bound.
    private func catchUp(_ outbox: Outbox, app: String) {
        let ours = shared.withLock { shared -> Set<String>? in
            guard !shared.caughtUp else { return nil }
            shared.caughtUp = true
            return Set(shared.links.keys)
        }
        // This sink's sessions, and those other sinks of this process record into the same file.
        guard let ours else { return }
        // Sessions of earlier runs that crashed get their last event before they go.
        if let crashJournalFolder { outbox.recoverCrashes(from: crashJournalFolder) }
        let current = ours.union(outbox.liveSessions)
        let pending: [Outbox.Pending]
        do {
            if let dropped = try outbox.enforceLimit(keeping: current) { sayLocalProblem(dropped) }
            pending = try outbox.pending(app: app, excluding: current)
        } catch {
            sayLocalProblem("cannot read the events kept in \(outbox.path) to deliver them (\(error))")
            return
        }
        for item in pending {
            let id = item.localID
            let link = ServerLink(
                session: item.session, transport: transport, requests: requests, startAt: startingServer, capacity: .max,
                commands: { command, link in
                    link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this session is being delivered from the device's log; its app is not running"))
                },
                failures: { _, _ in },
                acknowledged: { seq, server in outbox.acknowledged(session: id, through: seq, by: server.absoluteString) },
                history: { from, before in try outbox.events(session: id, from: from, before: before) })
            shared.withLock { $0.catchingUp.append(link) }
            link.connect()
            link.deliverRecorded(item.events, ended: item.ended, at: item.endedAt, acknowledgedThrough: item.ackedSeq)
        }
    }

    /// Says a problem with the local log once (again only when it changes).
    private func sayLocalProblem(_ sentence: String) {
        let changed = shared.withLock { shared -> Bool in
            guard shared.localProblem != sentence else { return false }
            shared.localProblem = sentence
            return true
        }
        if changed, let report { report(sentence) }
    }

    /// The last problem with the local log (it could not be opened or read, or passed its bound
    /// and dropped events the server lacks), in one sentence.
    package var lastLocalProblem: String? { shared.withLock { $0.localProblem } }

    /// Where the device keeps its copy of the events (`nil` without a local log, or before the
    /// first session).
    package var localLogPath: String? { shared.withLock { $0.outbox?.path } }

    /// Events of the sessions this sink serves, and of the earlier ones it delivers, that the
    /// server has not acknowledged: kept in the local log for later when it has one.
    package var undeliveredCount: Int {
        let catching = shared.withLock { $0.catchingUp }
        return unacknowledgedCount + catching.reduce(0) { $0 + $1.status.unacked }
    }

    /// How far the server got with the session `uuid`: the events it acknowledged and those
    /// written (seq 0 included), or `nil` for a session this sink never served.
    func delivery(of uuid: String) -> (acknowledged: Int, recorded: Int)? {
        let (link, final) = shared.withLock { shared in
            (shared.links[uuid] ?? shared.ending.first { $0.session.uuid == uuid }, shared.finals[uuid])
        }
        if let link {
            let status = link.status
            return (Int(status.ackedThrough + 1), Int(status.lastSeq + 1))
        }
        return final.map { (Int($0.acked + 1), Int($0.last + 1)) }
    }

    /// The last failure this sink saw, in one sentence: a refused event, a failed connect, or
    /// trouble with the local log.
    var lastFailure: String? {
        lastServerError ?? lastConnectReport ?? lastLocalProblem
    }

    /// The crash journals of the sessions this sink keeps on the device: `LOCAL_LOG/crashes`.
    package var crashJournalFolder: String? { outboxFolder.map { $0 + "/crashes" } }

    /// The token each server is asked with (`nil`: none).
    var tokens: [String?] { requests.map(\.token) }

    /// Whether the sink keeps a local log (store and forward).
    var keepsLocalLog: Bool { outboxFolder != nil }

    /// How many earlier sessions from the local log this sink delivers (once its first session
    /// has begun).
    package var catchUpCount: Int { shared.withLock { $0.catchingUp.count } }

    /// Waits until the earlier sessions found in the local log are delivered, or `timeout`.
    @discardableResult
    package func waitForCatchUp(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let catching = shared.withLock { $0.catchingUp }
        var all = true
        for link in catching where !link.waitUntilDelivered(until: deadline) { all = false }
        shared.withLock { $0.outbox }?.waitForMarks()
        return all
    }

    /// Waits up to ``flushTimeout`` for the server to acknowledge everything written so far.
    ///
    /// It never throws, and it returns at once while the server is away (the sink is waiting to
    /// reconnect): a missing server must neither stop the recording nor hold the app, which
    /// flushes when it stops recording. Whether everything was acknowledged is
    /// ``lastFlushAcknowledged``; ``waitUntilDelivered(timeout:)`` waits through outages.
    package func flush() throws {
        // The local log first: committed, the events are safe whatever the server does.
        try? shared.withLock { $0.outbox }?.commit()
        let acked = waitForAcks(timeout: flushTimeout, throughOutages: false)
        shared.withLock { $0.lastFlushAcked = acked }
    }

    /// Says `end` once the server holds every event of the session; until then the sink keeps
    /// reconnecting to deliver them.
    package func end(_ session: RecordingSession, at date: Date) throws {
        try? shared.withLock { $0.outbox }?.end(session, at: date)
        let link = shared.withLock { shared in
            let link = shared.links[session.uuid]
            // Links over by now need no waiting: keep only those still delivering, so an app that
            // records session after session does not keep every finished one.
            shared.ending.removeAll { $0.isOver }
            if let link { shared.ending.append(link) }
            return link
        }
        link?.end(at: date.timeIntervalSince1970)
    }

    /// Waits until every ended session has been delivered: all its events acknowledged, `end`
    /// written to the socket and the connection closed. A process that exits right after ending
    /// its recording calls this so its last message is not cut off; `false` if `timeout` passed
    /// first (the server is away, say).
    @discardableResult
    package func waitUntilEnded(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let (ending, catching) = shared.withLock { ($0.ending, $0.catchingUp) }
        var delivered: [ServerLink] = []
        // With a local log the events are safe on the device: while the server is away there is
        // nothing to wait for (they go out the next time the app reaches it).
        let outbox = shared.withLock { $0.outbox }
        // Only a session the local log holds is safe there: one it could not take lives in
        // memory alone and is waited for like any other.
        func keptLocally(_ link: ServerLink) -> Bool {
            guard let outbox else { return false }
            return outbox.sessionID(of: link.session.uuid) != nil && outbox.lastFailure == nil
        }
        for link in ending where link.waitUntilDelivered(until: deadline, unlessUnanswered: keptLocally(link)) {
            delivered.append(link)
        }
        shared.withLock { shared in
            for link in ending {
                let status = link.status
                shared.finals[link.session.uuid] = (status.ackedThrough, status.lastSeq)
            }
        }
        // Earlier sessions delivered from the local log get what is left of the time too; what
        // they do not finish stays on the device for the next run.
        var caughtUp = true
        // Catch-up sessions come from the local log: never connected, they wait there.
        for link in catching where !link.waitUntilDelivered(until: deadline, unlessUnanswered: outbox != nil) {
            caughtUp = false
        }
        outbox?.waitForMarks()
        _ = caughtUp
        return shared.withLock { shared in
            shared.ending.removeAll { link in delivered.contains { $0 === link } }
            return shared.ending.isEmpty
        }
    }

    /// Waits until the server has acknowledged every event written so far; `false` on timeout.
    @discardableResult
    package func waitForAcknowledgements(timeout: Duration) -> Bool {
        waitForAcks(timeout: timeout, throughOutages: true)
    }

    private func waitForAcks(timeout: Duration, throughOutages: Bool) -> Bool {
        let deadline = Deadline.after(timeout)
        let links = shared.withLock { Array($0.links.values) }
        // A transport that cannot run here gave up: what it held is not acknowledged.
        var acked = !shared.withLock { $0.gaveUp }
        for link in links where !link.waitForAcks(until: deadline, throughOutages: throughOutages) { acked = false }
        return acked
    }

    /// Closes every connection and stops reconnecting; unacknowledged events are dropped.
    public func disconnect() {
        let links = shared.withLock { shared in
            defer { shared.links.removeAll() }
            return Array(shared.links.values)
        }
        for link in links { link.stop() }
    }

    /// Where the sink stands, read at once: what an app shows in a debug screen or logs.
    public struct Status: Sendable, Equatable {
        /// A session's connection is welcomed and streaming.
        public var isConnected: Bool
        /// The server the sessions last reached (with fallbacks, the one they moved to), or
        /// `nil` before any welcome.
        public var server: URL?
        /// Connections welcomed so far, over all sessions (the first and every reconnect).
        public var connections: Int
        /// Events written that the server has not acknowledged yet, in the sessions this sink
        /// serves and the earlier ones it delivers from the local log.
        public var undelivered: Int
        /// Events whose state change was dropped to stay within the sink's capacity while the
        /// server was away (sent `coalesced`: the action is kept, its patch is not).
        public var droppedStates: Int
        /// Earlier sessions of this app found in the local log and being delivered.
        public var catchingUp: Int
        /// The device's copy of the events (`nil` without a local log, or before the first
        /// session).
        public var localLogPath: String?
        /// The latest trouble, in one sentence naming the server or file: an event the server
        /// refused or that was kept from it, a failed connect, or a local log that cannot be
        /// used. `nil` when there has been none.
        public var problem: String?
    }

    /// Where the sink stands now.
    public var status: Status {
        Status(isConnected: isConnected, server: currentServer, connections: connectionCount, undelivered: undeliveredCount,
               droppedStates: droppedStateCount, catchingUp: catchUpCount, localLogPath: localLogPath, problem: lastFailure)
    }

    /// Waits until the server has everything this sink was given: the earlier sessions found in
    /// the local log, every event written so far acknowledged, and every ended session's end.
    /// It waits through outages (the sink reconnects meanwhile); `false` when `timeout` passes
    /// first. It blocks the calling thread: call it off the main actor (a test, a command line
    /// tool, a background task before the app exits).
    @discardableResult
    public func waitUntilDelivered(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let caughtUp = waitForCatchUp(timeout: deadline.remaining)
        let acknowledged = waitForAcknowledgements(timeout: deadline.remaining)
        let ending = shared.withLock { $0.ending }
        var ended = true
        for link in ending where !link.waitUntilDelivered(until: deadline) { ended = false }
        return caughtUp && acknowledged && ended
    }

    /// Whether the last ``flush()`` saw every event acknowledged.
    package var lastFlushAcknowledged: Bool {
        shared.withLock { $0.lastFlushAcked }
    }

    // The counts below cover the sessions the sink still serves (not those whose `end` the
    // server has received).

    /// `true` while a session's connection is welcomed and streaming.
    package var isConnected: Bool { statuses.contains { $0.connected } }
    /// Events written but not yet acknowledged, over all sessions.
    package var unacknowledgedCount: Int { statuses.reduce(0) { $0 + $1.unacked } }
    /// Events whose state change was dropped to stay within ``capacity`` (sent `coalesced`).
    package var droppedStateCount: Int { statuses.reduce(0) { $0 + $1.droppedStates } }
    /// Connections welcomed so far, over all sessions (the first one and every reconnect).
    package var connectionCount: Int { statuses.reduce(0) { $0 + $1.connections } }

    /// The last `error` the server sent (a refused event, a protocol problem), or the sentence
    /// about the last event kept from the server because it would refuse it (a state over its
    /// `--max-state`, a message over its largest), if any.
    package var lastServerError: String? { statuses.lazy.compactMap(\.lastError).first }

    /// Why the last failed connection attempt failed (the server refused the upgrade, nothing
    /// listens, …), if one has failed.
    package var lastConnectFailure: String? { shared.withLock { $0.latestFailure } }

    /// The last sentence reported about a failed connect, with the URL and what to do (what
    /// `report` was given), if one was.
    package var lastConnectReport: String? { shared.withLock { $0.latestReport } }

    /// Connection attempts made so far, over all sessions (each retry counts).
    var connectAttempts: Int {
        // Finished links are let go (and their attempts kept aside) as the statuses are read.
        let current = statuses.filter { !$0.finished }.reduce(0) { $0 + $1.attempts }
        return current + shared.withLock { $0.retiredAttempts }
    }

    /// The sessions' statuses; links that delivered their whole session are let go.
    private var statuses: [ServerLinkStatus] {
        let links = shared.withLock { $0.links }
        let statuses = links.mapValues(\.status)
        let finished = statuses.filter { $0.value.finished }.map(\.key)
        if !finished.isEmpty {
            shared.withLock { shared in
                for uuid in finished where shared.links[uuid] === links[uuid] {
                    shared.links[uuid] = nil
                    shared.retiredAttempts += statuses[uuid]?.attempts ?? 0
                    if let status = statuses[uuid] { shared.finals[uuid] = (status.ackedThrough, status.lastSeq) }
                }
            }
        }
        return Array(statuses.values)
    }

    private func link(for uuid: String) -> ServerLink? {
        shared.withLock { $0.links[uuid] }
    }

    /// Reports a failed connect to `server`: the first one, then again only when that server's
    /// kind of failure changes. With `onlyIfFirst`, nothing happens once any failure was
    /// reported (decided under the same lock as the report, so a failure the link reports
    /// meanwhile is never followed by it).
    private func didFail(_ failure: TransportFailure, server: URL, kind: ConnectFailure.Kind? = nil, sentence: String? = nil,
                         onlyIfFirst: Bool = false) {
        if failure.aboutEvents {
            // Not a connect failure: an event over the server's limits was kept from it, or a
            // server lacks events the link no longer holds (the link says so once;
            // `lastServerError` has the sentence).
            reportOrder.withLock { report?(failure.reason) }
            return
        }
        let connectFailure = ConnectFailure(reason: failure.reason, kind: kind)
        let text = sentence ?? connectFailure.sentence(url: server)
        reportOrder.withLock {
            let changed = shared.withLock { shared in
                if onlyIfFirst && !shared.reportedKinds.isEmpty { return false }
                shared.latestFailure = failure.reason
                if failure.isPermanent { shared.gaveUp = true }
                defer { shared.reportedKinds[server] = connectFailure.kind }
                guard shared.reportedKinds[server] != connectFailure.kind else { return false }
                shared.latestReport = text
                return true
            }
            guard changed, let report else { return }
            report(text)
        }
    }

    /// Writes a sentence to standard error, prefixed `rewind:`, as a console line.
    public static let reportToStandardError: @Sendable (String) -> Void = { sentence in
        FileHandle.standardError.write(Data("rewind: \(sentence)\n".utf8))
    }

    /// Runs the handler off the service thread and sends its result back.
    private func perform(_ command: Command, replyingOn link: ServerLink) {
        switch shared.withLock({ $0.handler }) {
        case .mainActor(let handler):
            Task { @MainActor in link.reply(await handler(command)) }
        case .anywhere(let handler):
            Task { link.reply(await handler(command)) }
        case nil:
            // No Swift task for a fixed answer: the shared pool has one thread a core, and an app
            // that holds them all would leave the server waiting for this reply.
            DispatchQueue.global().async {
                link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this app does not take commands"))
            }
        }
    }
}
