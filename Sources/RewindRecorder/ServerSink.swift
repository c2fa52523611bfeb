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
    let requests: [TransportRequest]
    let report: (@Sendable (String) -> Void)?
    /// Held from deciding a report to making it, so reports reach `report` in the order they
    /// were decided (the timer's and the link's failures come from different threads).
    let reportOrder = Mutex()
    let shared = Mutex(Shared())
    /// Where the first attempt's 2 s check and a fixed answer to a command run (``ServerLink/queue``).
    let queue = DispatchQueue(label: "rewind.server-sink")
    /// The server the last welcome came from (an index in `servers`): new sessions start there.
    /// A lock of its own, taken last (a link sets it while holding its own lock, and nothing is
    /// locked while it is held; `shared`'s is held while links are stopped), so the welcome is
    /// known before any ack it is followed by.
    let welcomedServer = Mutex<Int?>(nil)
    enum Handler {
        case anywhere(@Sendable (Command) async -> AppMessage.CommandResult)
        case mainActor(@MainActor @Sendable (Command) async -> AppMessage.CommandResult)
    }
    /// Why the servers (or the CA file) cannot be used, when they cannot.
    let addressProblem: String?
    let outboxFolder: String?
    let outboxLimit: Int64

    struct Shared {
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
        queue.asyncAfter(deadline: .now() + 2) { [weak self, weak link] in
            guard let self, let link else { return }
            let status = link.status
            guard status.connections == 0, !status.finished else { return }
            let still = self.servers.count > 1 ? "still trying it and the others" : "still trying"
            self.didFail(TransportFailure(reason: "no answer within 2 s; \(still)"), server: status.server, kind: .timedOut, onlyIfFirst: true)
        }
    }

    /// Where a new session connects first: the server the last welcome came from, else the first.
    var startingServer: Int { welcomedServer.withLock { $0 ?? 0 } }

    /// A session's connection was welcomed by `servers[index]`.
    func didWelcome(on index: Int) {
        welcomedServer.withLock { $0 = index }
    }

    /// Keeps the events (in the local log, when the sink has one, and in memory) and sends them
    /// when the session's connection is up.
    package func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        shared.withLock { $0.outbox }?.write(events, of: session)
        link(for: session.uuid)?.append(events)
    }

    /// The crash journals of the sessions this sink keeps on the device: `LOCAL_LOG/crashes`.
    package var crashJournalFolder: String? { outboxFolder.map { $0 + "/crashes" } }

    /// The token each server is asked with (`nil`: none).
    var tokens: [String?] { requests.map(\.token) }

    /// Whether the sink keeps a local log (store and forward).
    var keepsLocalLog: Bool { outboxFolder != nil }

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

    /// Closes every connection and stops reconnecting; unacknowledged events are dropped.
    public func disconnect() {
        let links = shared.withLock { shared in
            defer { shared.links.removeAll() }
            return Array(shared.links.values)
        }
        for link in links { link.stop() }
    }

    func link(for uuid: String) -> ServerLink? {
        shared.withLock { $0.links[uuid] }
    }

    /// Runs the handler off the service thread and sends its result back.
    func perform(_ command: Command, replyingOn link: ServerLink) {
        switch shared.withLock({ $0.handler }) {
        case .mainActor(let handler):
            Task { @MainActor in link.reply(await handler(command)) }
        case .anywhere(let handler):
            Task { link.reply(await handler(command)) }
        case nil:
            // No Swift task for a fixed answer, and not the global queue: both have one thread a
            // core (on Linux), and an app that holds them all would leave the server waiting.
            queue.async {
                link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this app does not take commands"))
            }
        }
    }
}
