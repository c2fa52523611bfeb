import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindSupport
import RewindWebSocket
import RewindWire

/// Takes apps' messages into the log, one serial queue for all apps so their order is kept and
/// a resumed session never races the connection it replaces. Never waits on inspectors.
///
/// The service thread leaves each message in a ``FairInbox`` (a FIFO per connection, with flow
/// control); the ingest queue drains it in rounds, one message per connection per round: it
/// opens and resumes sessions, checks each event (``EventCheck``), pushes it to inspectors and
/// hands the events to the log's writer in batches, whose completion sends the acks.
final class AppIngest: LocalApps, @unchecked Sendable {
    private struct AppConnection {
        var connection: WebSocketConnection
        var session: LiveSession?
        var errors = 0
    }

    private let queue = DispatchQueue(label: "rewind.server.ingest")
    /// `nil` for a server run with `--read-only`: it takes no app, and leaves the log's one
    /// writer to whoever else has it.
    private let writer: (any LogStoreWriter)?
    private let reader: LogReader
    private let hub: InspectorHub
    private let relay: CommandRelay
    private let maxErrors: Int
    /// What `welcome` states: the largest `/app` message and `--max-state`.
    private let limits: WireLimits
    // Ingest-queue state.
    private var apps: [UInt64: AppConnection] = [:]
    private var sessions: [Int64: LiveSession] = [:]
    /// The events of the current drain, checked, pushed and handed to the writer in batches.
    private let flow: EventFlow
    private enum Inbound {
        case message([UInt8], WebSocketConnection)
        case closed(WebSocketConnection)
    }

    /// Bounds on one connection's queued messages before reading it is paused; it is read again
    /// once its queue is back at or below half of both.
    private static let inboxMarks = FairInbox<UInt64, Inbound>.Marks(pauseItems: 256, pauseBytes: 32 << 20)

    /// What each app connection sent, waiting for the ingest queue: a FIFO per connection, served
    /// one message per connection per round, so one app's flood or expensive event delays another
    /// app's by about one event. A connection's close waits in its FIFO behind its messages. A
    /// connection whose FIFO reaches ``inboxMarks`` is no longer read (flow control) until it
    /// drains to half of them.
    private struct Inbox {
        var fifos = FairInbox<UInt64, Inbound>(rotation: .rejoinAtOnce, marks: AppIngest.inboxMarks)
        /// A drain is scheduled on the ingest queue or running: it takes whatever arrives before
        /// it finds the inbox empty.
        var drainScheduled = false
        /// The drain scheduled is left to the end of the service pass that read its first message
        /// (``servicePassEnded(readLittle:)``), which runs it there or hands it to the queue.
        var awaitingPassEnd = false
        /// Bytes of the messages the current service pass read.
        var passBytes = 0
    }

    private let inbox = Mutex(Inbox())
    /// Session id → the app connection streaming it, for commands and `live`.
    private let live = Mutex<[Int64: WebSocketConnection]>([:])

    /// What `--metrics` counts: events, errors sent.
    private let metrics: ServerMetrics?
    /// Where each session's start and end is said (`--log-format json`).
    private let log: (@Sendable (ServerLogEntry) -> Void)?

    init(writer: (any LogStoreWriter)?, store: any LogStore, hub: InspectorHub, relay: CommandRelay, cluster: (any ClusterPeers)?,
         metrics: ServerMetrics? = nil, log: (@Sendable (ServerLogEntry) -> Void)? = nil, maxErrors: Int,
         maxStateSize: Int = 64 << 20, maxMessageSize: Int = (64 << 20) + RewindServerConfiguration.appMessageRoom) throws(LogError) {
        self.metrics = metrics
        self.log = log
        self.flow = EventFlow(writer: writer, hub: hub, metrics: metrics,
                              stateLimits: JSONPatchLimits(maxDepth: RewindServerConfiguration.maxStateDepth, maxAddedBytes: maxStateSize))
        self.limits = WireLimits(maxMessage: maxMessageSize, maxState: maxStateSize)
        self.writer = writer
        self.reader = try store.openReader()
        self.hub = hub
        self.relay = relay
        self.cluster = cluster
        self.maxErrors = maxErrors
    }

    /// Sessions an app streams to this server now (a scrape reads it).
    var liveSessionCount: Int { live.withLock { $0.count } }

    /// App messages waiting for the ingest queue (a scrape reads it).
    var queuedMessageCount: Int { inbox.withLock { $0.fifos.itemCount } }

    /// The other servers on a team store; `nil` on a store of one server.
    private let cluster: (any ClusterPeers)?

    /// Whether an app streams `session` to this server now.
    func isStreaming(session: Int64) -> Bool {
        live.withLock { $0[session] != nil }
    }

    /// Another server asks for `session`: its app is resuming it there. The connection streaming
    /// it here (a connection the app has left, which this server has not noticed yet) is closed,
    /// as a resume on another connection of this server would, and the lease goes with it.
    func letGo(session: Int64) {
        queue.async {
            guard let live = self.sessions[session] else {
                // Not streamed here: a lease this server still holds (a hello that failed half
                // way, before it gave it back) goes now.
                self.writer?.release(session: session)
                return
            }
            live.connection.close(code: .normal, reason: "the session was resumed on another server")
            self.apps[live.connection.id]?.session = nil
            self.release(live, change: nil, announce: false)
        }
    }

    /// The ids of the sessions an app is streaming now.
    func liveSessionIDs() -> Set<Int64> {
        live.withLock { Set($0.keys) }
    }

    /// The connection of the app streaming `session`, if any.
    func appConnection(for session: Int64) -> WebSocketConnection? {
        live.withLock { $0[session] }
    }

    /// Waits until every message received so far is handled.
    func drain() {
        queue.sync { self.drainInbox() }
    }

    /// Service thread: a message from an app.
    func receive(_ bytes: [UInt8], from connection: WebSocketConnection) {
        enqueue(.message(bytes, connection), from: connection, bytes: bytes.count)
    }

    /// Service thread: an app connection closed.
    func closed(_ connection: WebSocketConnection) {
        // A close never pauses reading: nothing more comes from a closed connection.
        enqueue(.closed(connection), from: connection, bytes: 0, mayPause: false)
    }

    /// Hands work to the ingest queue in each connection's arrival order; one drain is scheduled
    /// per burst rather than one dispatch per message, which would cost a wake-up per event.
    /// A message's drain starts when the service pass that read it ends; a close's at once (a
    /// close may come while the server stops, with no pass after it).
    private func enqueue(_ item: Inbound, from connection: WebSocketConnection, bytes: Int, mayPause: Bool = true) {
        let isClose = if case .closed = item { true } else { false }
        let (schedule, pause) = inbox.withLock { inbox -> (Bool, Bool) in
            let pause = inbox.fifos.append(item, to: connection.id, bytes: bytes, mayPause: mayPause).paused
            inbox.passBytes += bytes
            if isClose && inbox.awaitingPassEnd {
                inbox.awaitingPassEnd = false
                return (true, pause)
            }
            if inbox.drainScheduled { return (false, pause) }
            inbox.drainScheduled = true
            if isClose { return (true, pause) }
            inbox.awaitingPassEnd = true
            return (false, pause)
        }
        if pause { applyFlow(to: connection) }
        if schedule { queue.async { self.drainInbox() } }
    }

    /// Service thread: the pass that delivered messages ended. One drain takes what the pass read:
    /// the socket thread reads a burst in one pass when the server gathers its input
    /// (`receiveGathering`), so at a steady few thousand events a second a drain takes several
    /// at a time (one writer hand-over and one batched write to each inspector for all of them).
    ///
    /// After a pass that read little, the drain runs here, on the service thread, for as long as
    /// its items are cheap (``serviceThreadCost(of:)``): waking the ingest queue's thread costs
    /// more than checking a few small events (Docs/BenchmarkHistory.md, "the steady-rate cost").
    /// The first item that is not cheap, and everything after it, goes to the ingest queue, which
    /// keeps the drain: a hello that reads the log or an event on a large state never holds up
    /// every socket of the server.
    func servicePassEnded(readLittle: Bool) {
        let (start, bytes) = inbox.withLock { inbox -> (Bool, Int) in
            defer {
                inbox.awaitingPassEnd = false
                inbox.passBytes = 0
            }
            return (inbox.awaitingPassEnd, inbox.passBytes)
        }
        guard start else { return }
        if readLittle && bytes < Self.serviceThreadPassBytes {
            // The queue is idle (this drain was not started, and nothing else runs on it but a
            // short `letGo`), so `sync` runs the drain on this thread.
            queue.sync { self.drainInbox(onServiceThread: true) }
        } else {
            queue.async { self.drainInbox() }
        }
    }

    /// Serializes ``applyFlow(to:)``.
    private let flowLock = Mutex()

    /// Pauses or resumes reading `connection` as its inbox says now. The decision is taken under
    /// the inbox lock and applied after it; applying the current decision (not the one taken)
    /// under a lock of its own means a pause and a resume decided close together cannot land in
    /// the wrong order and leave a connection paused with an empty inbox.
    private func applyFlow(to connection: WebSocketConnection) {
        flowLock.withLock {
            let paused = inbox.withLock { $0.fifos.isPaused(connection.id) }
            if paused { connection.pauseReceiving() } else { connection.resumeReceiving() }
        }
    }

    /// Takes one item from each connection with something queued, in turn order.
    private func nextTurn() -> [Inbound] {
        let turns = inbox.withLock { inbox -> [FairInbox<UInt64, Inbound>.Turn] in
            let turns = inbox.fifos.nextRound()
            if turns.isEmpty {
                inbox.drainScheduled = false
                inbox.awaitingPassEnd = false
            }
            return turns
        }
        for turn in turns where turn.resumed {
            // A connection whose close was queued is not read again anyway.
            if case .message(_, let connection) = turn.item { applyFlow(to: connection) }
        }
        return turns.map(\.item)
    }

    // MARK: - On the ingest queue

    /// Takes what the inbox holds, round by round, until it is empty. `onServiceThread`: run by
    /// ``servicePassEnded(readLittle:)`` inside `queue.sync`, it hands the rest to the queue at
    /// the first item that is not cheap or past the pass's budget.
    private func drainInbox(onServiceThread: Bool = false) {
        var budget = onServiceThread ? Self.serviceThreadBudget : Int.max
        while true {
            let items = nextTurn()
            if items.isEmpty {
                flow.flush()
                return
            }
            for (index, item) in items.enumerated() {
                if onServiceThread {
                    guard let cost = serviceThreadCost(of: item), cost <= budget else {
                        let rest = items[index...]
                        queue.async {
                            for item in rest { self.take(item) }
                            if self.flow.isFull { self.flow.flush() }
                            self.drainInbox()
                        }
                        return
                    }
                    budget -= cost
                }
                take(item)
            }
            // One app alone streams in batches (one commit for many events); several apps take
            // turns, and a change of session hands the batch over anyway. The byte bound keeps
            // one commit of large events short, so another app's ack waits about one event.
            if flow.isFull { flow.flush() }
        }
    }

    private func take(_ item: Inbound) {
        switch item {
        case .message(let bytes, let connection):
            handle(bytes, from: connection)
            flow.counted(messageBytes: bytes.count)
        case .closed(let connection):
            flow.flush()
            handleClose(connection)
        }
    }

    /// A pass that read this much of apps' messages or more is part of a burst (a catch-up, a
    /// flood), not of a steady stream: its drain goes to the queue, and the socket thread goes
    /// on reading meanwhile. (At 5,000 events/s of 1 KB a pass reads about 8 KiB; drained on the
    /// socket thread, a flood's passes of 16 to 32 KiB slowed one app's unpaced ingest by 8 %.)
    static let serviceThreadPassBytes = 16 << 10
    /// The JSON bytes one service pass may check on the service thread: its messages and the
    /// states their events change (an event's check hashes its session's whole state, ~2 ms a
    /// megabyte), about half a millisecond of work.
    static let serviceThreadBudget = 256 << 10
    /// The largest message, and the largest session state, whose event is checked on the
    /// service thread.
    static let serviceThreadMessageBytes = 16 << 10
    static let serviceThreadStateBytes = 64 << 10

    /// What taking `item` on the service thread costs, in bytes of JSON (the message and the
    /// state its event changes); `nil` when it must go to the ingest queue: a close, a message
    /// of a connection with no open session (a hello reads the log and waits for the writer),
    /// of a session whose state is large or not measured yet, a large message, or a message
    /// that is not an event (`end` waits for the writer).
    private func serviceThreadCost(of item: Inbound) -> Int? {
        guard case .message(let bytes, let connection) = item, bytes.count <= Self.serviceThreadMessageBytes,
              let session = apps[connection.id]?.session, let state = session.stateBytes,
              state <= Self.serviceThreadStateBytes, Self.looksLikeEvent(bytes) else { return nil }
        return bytes.count + state
    }

    /// Whether `bytes` begin as an app's `event` or `events` message does,
    /// `{"type":"event"` or `{"type":"events"`, as the recorder writes it (compact, `type`
    /// first). Anything else (another order, spaces, another type) is not cheap: it goes to
    /// the queue, where it is handled as always.
    static func looksLikeEvent(_ bytes: [UInt8]) -> Bool {
        let prefix = Self.eventPrefix
        guard bytes.count > prefix.count + 1, bytes.starts(with: prefix) else { return false }
        let next = bytes[prefix.count]
        return next == UInt8(ascii: "\"") || (next == UInt8(ascii: "s") && bytes[prefix.count + 1] == UInt8(ascii: "\""))
    }

    private static let eventPrefix = Array(#"{"type":"event"#.utf8)

    private func handleClose(_ connection: WebSocketConnection) {
        guard let app = apps.removeValue(forKey: connection.id) else { return }
        relay.appClosed(connection)
        guard let session = app.session, session.connection === connection else { return }
        release(session, change: nil)
    }

    private func handle(_ bytes: [UInt8], from connection: WebSocketConnection) {
        var app = apps[connection.id] ?? AppConnection(connection: connection)
        do throws(WireError) {
            let json = try parseFrame(bytes)
            let message = try AppMessage(json: json)
            switch message {
            case .event, .events: break
            default:
                // Whatever else comes (hello, end, result) sees the events before it stored.
                flow.flush()
            }
            switch message {
            case .hello(let hello):
                app.session = try self.hello(hello, app: app)
            case .event(let event):
                guard let session = app.session else {
                    throw WireError(.helloFirst, "say hello before sending events")
                }
                // A frame that says no more than the event is forwarded to inspectors as it came.
                var forward: [UInt8]?
                if case .object(let object) = json, InspectorPush.canForward(event: object) { forward = bytes }
                try flow.take(event, session: session, frame: forward)
            case .events(let batch):
                guard let session = app.session else {
                    throw WireError(.helloFirst, "say hello before sending events")
                }
                try flow.take(batch, session: session)
            case .result(let result):
                relay.result(result, from: connection)
            case .end(let id, let at):
                guard let session = app.session else { throw WireError(.helloFirst, "say hello before ending a session", id: id) }
                do {
                    try writer?.endSession(id: session.id, at: Self.endTime(claimed: at, startedAt: session.startedAt, now: Date()))
                } catch {
                    throw WireError(.storage, "could not record the end of the session: \(error)", id: id)
                }
                // Durable now (a writer's call runs committed): the app may forget the session.
                _ = connection.send(textBytes: ServerToApp.ended(id: id, session: session.uuid).json.serializedBytes(.compact))
                release(session, change: .ended)
                app.session = nil
            }
            app.errors = 0
        } catch {
            // A log that cannot store (a full disk, a read-only file) is the server's trouble, not
            // the app's: it never counts toward closing the app, which keeps its events and
            // resumes once the log takes them again.
            if error.code != .storage { app.errors += 1 }
            _ = connection.send(textBytes: error.json.serializedBytes(.compact))
            metrics?.sentError(code: error.code.rawValue)
            if app.errors >= maxErrors {
                connection.close(code: .policyViolation, reason: "\(app.errors) protocol errors in a row")
            }
        }
        apps[connection.id] = app
    }

    /// The meta a hello's session is stored with: the app's, with the hello's `version` in
    /// `version` (what `rewind sessions --app-version` and the inspector's list filter on). Its
    /// `tags`, when present, must be tags: a tag the log could not index would be a filter
    /// that silently misses the session.
    static func storedMeta(of hello: AppMessage.Hello) throws(WireError) -> JSONObject {
        var meta = hello.meta
        if let version = hello.version { meta["version"] = .string(version) }
        if let tags = meta["tags"] {
            let expected = "a list of at most \(SessionTags.maxCount) strings of 1 to \(SessionTags.maxBytes) bytes"
            guard let items = tags.arrayValue, items.count <= SessionTags.maxCount else {
                throw WireError(.badMessage, "hello: \"meta.tags\" must be \(expected)", id: hello.id)
            }
            for (index, item) in items.enumerated() {
                guard let tag = item.stringValue else {
                    throw WireError(.badMessage, "hello: \"meta.tags\" must be \(expected); item \(index) is not a string", id: hello.id)
                }
                if let problem = SessionTags.problem(with: tag) {
                    throw WireError(.badMessage, "hello: \"meta.tags\" item \(index): \(problem)", id: hello.id)
                }
            }
        }
        return meta
    }

    /// When a session ended: the time its app says (`end`'s `at`, kept on the device when the
    /// session is delivered late), held between the session's start and now; now when the app
    /// says nothing or something that is not a time.
    static func endTime(claimed: Double?, startedAt: Double, now: Date) -> Date {
        guard let claimed, claimed.isFinite else { return now }
        return Date(timeIntervalSince1970: min(max(claimed, startedAt), now.timeIntervalSince1970))
    }

    private func hello(_ hello: AppMessage.Hello, app: AppConnection) throws(WireError) -> LiveSession {
        if let current = app.session {
            guard current.uuid == hello.session else {
                throw WireError(.badMessage, "this connection already streams session \(current.uuid); open another connection for another session", id: hello.id)
            }
        }
        let connection = app.connection
        guard let writer else {
            throw WireError(.readOnly, "this server runs with --read-only and stores nothing; stream to a server that writes the log", id: hello.id)
        }
        let meta = try Self.storedMeta(of: hello)
        let id: Int64
        let next: Int64
        let wasLive: Bool
        // A hello that fails once the session is opened gives its lease back (unless another
        // connection here streams the session): held, it would keep every other instance from
        // taking the session for as long as this one runs.
        var opened: Int64?
        var welcomed = false
        defer {
            if !welcomed, let opened, sessions[opened] == nil { writer.release(session: opened) }
        }
        do {
            let started = Date(timeIntervalSince1970: hello.startedAt ?? Date().timeIntervalSince1970)
            id = try writer.openSession(uuid: hello.session, app: hello.app, startedAt: started, meta: .object(meta),
                                      replayOf: hello.replayOf, run: hello.run, hashVersion: hello.hashVersion,
                                      owner: hello.secret.map(SessionOwner.proving))
            opened = id
            try writer.commit()
            next = try writer.nextSeq(session: id)
        } catch {
            if case .notOwner = error.kind {
                // One sentence whatever the session: nothing of it (its seq, its state, who holds
                // it) is told to a hello that does not prove it.
                throw WireError(.notOwner, "hello: session \(hello.session) cannot be opened with this secret; a session belongs to the app that started it", id: hello.id)
            }
            if case .hashVersionMismatch = error.kind {
                throw WireError(.badMessage, "hashVersion: \(error)", id: hello.id)
            }
            if case .runMismatch = error.kind {
                throw WireError(.badMessage, "run: \(error)", id: hello.id)
            }
            if case .sessionLeased = error.kind {
                // Its app left another server without that server noticing yet: ask it to let
                // go, and the app's next try (it backs off and says hello again) takes it.
                if let held = (try? writer.sessionID(uuid: hello.session)) ?? nil { cluster?.askToRelease(session: held) }
            }
            throw WireError(.storage, "could not open the session in the log: \(error)", id: hello.id)
        }
        let session: LiveSession
        if let existing = sessions[id], !existing.broken, existing.builder.nextSeq == next {
            // Still in memory (a quick reconnect): take it over from the old connection.
            wasLive = true
            if existing.connection !== connection {
                existing.connection.close(code: .normal, reason: "the session was resumed on another connection")
                apps[existing.connection.id]?.session = nil
                existing.connection = connection
                existing.acks.rebind(connection)
            }
            session = existing
        } else {
            wasLive = false
            let builder: EventBuilder
            if next == 0 {
                builder = EventBuilder(sessionID: id, hashVersion: hello.hashVersion)
            } else {
                do {
                    let state = try Timeline(reader: reader, session: id, options: .uncached).state(at: next - 1)
                    builder = EventBuilder(resuming: id, nextSeq: next, state: state, hashVersion: hello.hashVersion)
                } catch {
                    throw WireError(.storage, "could not rebuild the session's state from the log: \(error)", id: hello.id)
                }
            }
            if let old = sessions[id], old.connection !== connection {
                old.connection.close(code: .normal, reason: "the session was resumed on another connection")
                apps[old.connection.id]?.session = nil
            }
            session = LiveSession(id: id, uuid: hello.session, builder: builder, connection: connection, durable: next - 1)
            session.startedAt = hello.startedAt ?? Date().timeIntervalSince1970
            sessions[id] = session
            // On a team store the session's lease is this server's now.
            if cluster != nil { metrics?.leaseChanged() }
        }
        welcomed = true
        live.withLock { $0[id] = connection }
        _ = connection.send(textBytes: ServerToApp.welcome(id: hello.id, session: hello.session, nextSeq: next, limits: limits).json.serializedBytes(.compact))
        if let info = try? reader.session(id: id) {
            hub.publish(change: next > 0 || wasLive ? .resumed : .started, session: WireSession(info, live: true))
        }
        cluster?.announce(next > 0 || wasLive ? .resumed : .started, session: id)
        if let log {
            let resumed = next > 0 || wasLive
            log(ServerLogEntry(level: .info, event: resumed ? "session-resumed" : "session-started", session: hello.session, app: hello.app,
                               message: resumed ? "\(hello.app) resumed session \(hello.session) at seq \(next)" : "\(hello.app) started session \(hello.session)"))
        }
        return session
    }

    private func release(_ session: LiveSession, change: InspectorPush.SessionChange?, announce: Bool = true) {
        if sessions.removeValue(forKey: session.id) != nil, cluster != nil { metrics?.leaseChanged() }
        live.withLock { live in
            if live[session.id] === session.connection { live[session.id] = nil }
        }
        // On a shared store another server may take the session now (after what was appended
        // is committed: the writer keeps the order).
        writer?.release(session: session.id)
        let info = try? reader.session(id: session.id)
        if let info {
            hub.publish(change: change ?? .ended, session: WireSession(info, live: false))
        }
        if announce { cluster?.announce(change ?? .ended, session: session.id) }
        if let log {
            let app = info?.app
            let name = app ?? "an app"
            if change == .ended {
                log(ServerLogEntry(level: .info, event: "session-ended", session: session.uuid, app: app, message: "\(name) ended session \(session.uuid)"))
            } else if !announce {
                // Resumed on another server of the team store: its app moved there.
                log(ServerLogEntry(level: .info, event: "session-moved", session: session.uuid, app: app,
                                   message: "\(name) resumed session \(session.uuid) on another server"))
            } else {
                log(ServerLogEntry(level: .info, event: "session-interrupted", session: session.uuid, app: app,
                                   message: "\(name) went without ending session \(session.uuid)"))
            }
        }
    }
}
