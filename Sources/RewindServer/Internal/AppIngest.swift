import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWebSocket
import RewindWire

/// Takes apps' messages into the log, one serial queue for all apps so their order is kept and
/// a resumed session never races the connection it replaces. Never waits on inspectors.
final class AppIngest: @unchecked Sendable {
    private struct AppConnection {
        var connection: WebSocketConnection
        var session: LiveSession?
        var errors = 0
    }

    private let queue = DispatchQueue(label: "rewind.server.ingest")
    /// `nil` for a server run with `--read-only`: it takes no app, and leaves the log's one
    /// writer to whoever else has it.
    private let writer: LogWriter?
    private let reader: LogReader
    private let hub: InspectorHub
    private let relay: CommandRelay
    private let maxErrors: Int
    /// What one event's state may reach: the deepest nesting the log reads back and `--max-state`.
    private let stateLimits: JSONPatchLimits
    /// What `welcome` states: the largest `/app` message and `--max-state`.
    private let limits: WireLimits
    // Ingest-queue state.
    private var apps: [UInt64: AppConnection] = [:]
    private var sessions: [Int64: LiveSession] = [:]
    /// Events validated in the current drain, not yet handed to the writer: all of one session.
    private var pendingSession: LiveSession?
    private var pendingEvents: [LogEvent] = []
    /// The size of the messages whose events are in `pendingEvents`.
    private var pendingBytes = 0
    private enum Inbound {
        case message([UInt8], WebSocketConnection)
        case closed(WebSocketConnection)

        var size: Int {
            if case .message(let bytes, _) = self { return bytes.count }
            return 0
        }
    }

    /// What each app connection sent, waiting for the ingest queue: a FIFO per connection, served
    /// one message per connection per turn, so one app's flood or expensive event delays another
    /// app's by about one event. A connection whose FIFO passes its bound is no longer read
    /// (flow control) until it drains below half.
    private struct Inbox {
        var queues: [UInt64: ArraySlice<Inbound>] = [:]
        var bytes: [UInt64: Int] = [:]
        /// Connections with something queued, in turn order.
        var turns: [UInt64] = []
        var paused: Set<UInt64> = []
        var drainScheduled = false
    }

    /// Bounds on one connection's queued messages before reading it is paused.
    static let inboxMessages = 256
    static let inboxBytes = 32 << 20

    private let inbox = Locked(Inbox())
    /// Session id → the app connection streaming it, for commands and `live`.
    private let live = Locked<[Int64: WebSocketConnection]>([:])

    init(writer: LogWriter?, logPath: String, hub: InspectorHub, relay: CommandRelay, maxErrors: Int,
         maxStateSize: Int = 64 << 20, maxMessageSize: Int = (64 << 20) + RewindServerConfiguration.appMessageRoom) throws(LogError) {
        self.stateLimits = JSONPatchLimits(maxDepth: RewindServerConfiguration.maxStateDepth, maxAddedBytes: maxStateSize)
        self.limits = WireLimits(maxMessage: maxMessageSize, maxState: maxStateSize)
        self.writer = writer
        self.reader = try LogReader(path: logPath)
        self.hub = hub
        self.relay = relay
        self.maxErrors = maxErrors
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

    func receive(_ bytes: [UInt8], from connection: WebSocketConnection) {
        enqueue(.message(bytes, connection))
    }

    func closed(_ connection: WebSocketConnection) {
        enqueue(.closed(connection))
    }

    /// Hands work to the ingest queue in each connection's arrival order; one drain is scheduled
    /// per burst rather than one dispatch per message, which would cost a wake-up per event.
    private func enqueue(_ item: Inbound) {
        let connection: WebSocketConnection
        switch item {
        case .message(_, let c), .closed(let c): connection = c
        }
        let key = connection.id
        let (schedule, pause) = inbox.withLock { inbox -> (Bool, Bool) in
            if inbox.queues[key]?.isEmpty ?? true { inbox.turns.append(key) }
            inbox.queues[key, default: []].append(item)
            let bytes = inbox.bytes[key, default: 0] + item.size
            inbox.bytes[key] = bytes
            var pause = false
            if case .message = item, !inbox.paused.contains(key),
               inbox.queues[key]!.count >= Self.inboxMessages || bytes >= Self.inboxBytes {
                inbox.paused.insert(key)
                pause = true
            }
            if inbox.drainScheduled { return (false, pause) }
            inbox.drainScheduled = true
            return (true, pause)
        }
        if pause { applyFlow(to: connection) }
        // One drain per burst: the socket thread reads a burst in one pass when the server
        // gathers its input (`receiveGathering`), so at a steady few thousand events a second the
        // drain takes several at a time: one wake-up of this queue, one writer hand-over and one
        // batched write to each inspector for all of them (Docs/Benchmarks.md, "Out of process").
        if schedule { queue.async { self.drainInbox() } }
    }

    /// Serializes ``applyFlow(to:)``.
    private let flowLock = NSLock()

    /// Pauses or resumes reading `connection` as its inbox says now. The decision is taken under
    /// the inbox lock and applied after it; applying the current decision (not the one taken)
    /// under a lock of its own means a pause and a resume decided close together cannot land in
    /// the wrong order and leave a connection paused with an empty inbox.
    private func applyFlow(to connection: WebSocketConnection) {
        flowLock.lock()
        defer { flowLock.unlock() }
        let paused = inbox.withLock { $0.paused.contains(connection.id) }
        if paused { connection.pauseReceiving() } else { connection.resumeReceiving() }
    }

    /// Takes one item from each connection with something queued, in turn order.
    private func nextTurn() -> [Inbound] {
        var resumed: [WebSocketConnection] = []
        let items = inbox.withLock { inbox -> [Inbound] in
            var items: [Inbound] = []
            items.reserveCapacity(inbox.turns.count)
            var still: [UInt64] = []
            for key in inbox.turns {
                guard var queue = inbox.queues[key], let item = queue.popFirst() else { continue }
                items.append(item)
                let bytes = inbox.bytes[key, default: 0] - item.size
                if queue.isEmpty {
                    inbox.queues[key] = nil
                    inbox.bytes[key] = nil
                } else {
                    inbox.queues[key] = queue
                    inbox.bytes[key] = bytes
                    still.append(key)
                }
                if inbox.paused.contains(key), queue.count <= Self.inboxMessages / 2, bytes <= Self.inboxBytes / 2 {
                    inbox.paused.remove(key)
                    if case .message(_, let connection) = item { resumed.append(connection) }
                }
            }
            inbox.turns = still
            if items.isEmpty { inbox.drainScheduled = false }
            return items
        }
        for connection in resumed { applyFlow(to: connection) }
        return items
    }

    private func drainInbox() {
        while true {
            let items = nextTurn()
            if items.isEmpty {
                flushPending()
                return
            }
            for item in items {
                switch item {
                case .message(let bytes, let connection):
                    handle(bytes, from: connection)
                    if !pendingEvents.isEmpty { pendingBytes += bytes.count }
                case .closed(let connection):
                    flushPending()
                    handleClose(connection)
                }
            }
            // One app alone streams in batches (one commit for many events); several apps take
            // turns, and a change of session hands the batch over anyway. The byte bound keeps
            // one commit of large events short, so another app's ack waits about one event.
            if pendingEvents.count >= Self.batchEvents || pendingBytes >= Self.batchBytes { flushPending() }
        }
    }

    /// The most events handed to the writer in one batch.
    static let batchEvents = 256
    /// The most message bytes handed to the writer in one batch (a larger event goes alone).
    static let batchBytes = 1 << 20

    private func handleClose(_ connection: WebSocketConnection) {
        guard let app = apps.removeValue(forKey: connection.id) else { return }
        relay.appClosed(connection)
        guard let session = app.session, session.connection === connection else { return }
        release(session, change: nil)
    }

    // MARK: - On the ingest queue

    private func handle(_ bytes: [UInt8], from connection: WebSocketConnection) {
        var app = apps[connection.id] ?? AppConnection(connection: connection)
        do throws(WireError) {
            let json = try parseFrame(bytes)
            let message = try AppMessage(json: json)
            switch message {
            case .event, .events: break
            default:
                // Whatever else comes (hello, end, result) sees the events before it stored.
                flushPending()
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
                try self.event(event, session: session, frame: forward)
            case .events(let batch):
                guard let session = app.session else {
                    throw WireError(.helloFirst, "say hello before sending events")
                }
                try events(batch, session: session)
            case .result(let result):
                relay.result(result, from: connection)
            case .end(let id):
                guard let session = app.session else { throw WireError(.helloFirst, "say hello before ending a session", id: id) }
                do {
                    try writer?.endSession(id: session.id, at: Date())
                } catch {
                    throw WireError(.storage, "could not record the end of the session: \(error)", id: id)
                }
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
            if app.errors >= maxErrors {
                connection.close(code: .policyViolation, reason: "\(app.errors) protocol errors in a row")
            }
        }
        apps[connection.id] = app
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
        let id: Int64
        let next: Int64
        let wasLive: Bool
        do {
            let started = Date(timeIntervalSince1970: hello.startedAt ?? Date().timeIntervalSince1970)
            id = try writer.openSession(uuid: hello.session, app: hello.app, startedAt: started, meta: .object(hello.meta),
                                      replayOf: hello.replayOf, run: hello.run, hashVersion: hello.hashVersion)
            try writer.commit()
            next = try writer.nextSeq(session: id)
        } catch {
            if case .hashVersionMismatch = error.kind {
                throw WireError(.badMessage, "hashVersion: \(error)", id: hello.id)
            }
            if case .runMismatch = error.kind {
                throw WireError(.badMessage, "run: \(error)", id: hello.id)
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
            sessions[id] = session
        }
        live.withLock { $0[id] = connection }
        _ = connection.send(textBytes: ServerToApp.welcome(id: hello.id, session: hello.session, nextSeq: next, limits: limits).json.serializedBytes(.compact))
        if let info = try? reader.session(id: id) {
            hub.publish(change: next > 0 || wasLive ? .resumed : .started, session: wireSession(info, live: true))
        }
        return session
    }

    /// Takes a batch's events in order, each exactly as an `event` of its own; the first one
    /// refused (or unreadable) stops the batch with its error, and the ones before it stand.
    /// Events already stored are acked once for the whole batch.
    private func events(_ batch: WireEventBatch, session: LiveSession) throws(WireError) {
        var resent = false
        defer { if resent { session.acks.resend() } }
        for event in batch.events {
            // No frame to forward: each event's push is built on its own.
            if try !self.event(event, session: session, frame: nil, acknowledgingResend: false) { resent = true }
        }
        if let broken = batch.broken { throw broken }
    }

    /// Takes one event; `false` when the session already has it (then, with
    /// `acknowledgingResend`, the current ack is sent again).
    @discardableResult
    private func event(_ event: WireEvent, session: LiveSession, frame: [UInt8]?,
                       acknowledgingResend: Bool = true) throws(WireError) -> Bool {
        if session.broken {
            throw WireError(.storage, "the log refused an earlier event of this session; say hello again to resume")
        }
        let expected = session.builder.nextSeq
        if event.seq < expected {
            // Already stored (or on its way): the ack covers it; nothing is stored twice.
            if acknowledgingResend { session.acks.resend() }
            return false
        }
        guard event.seq == expected else {
            throw WireError(.seqGap, "event \(event.seq) arrived but the server expects \(expected) next; resend from \(expected)")
        }
        let at = Date(timeIntervalSince1970: event.at)
        // Built on a copy: a refused event must leave the session's state as it was.
        var builder = session.builder
        var logEvent: LogEvent
        if let keyframe = event.keyframe {
            let bytes = try checkWhole(keyframe, seq: event.seq)
            logEvent = builder.next(action: event.action, state: keyframe, at: at, durationNs: event.durationNs,
                                    cause: event.cause, coalesced: event.coalesced)
            session.stateBytes = bytes
        } else {
            let patch: JSONPatch
            do {
                patch = try JSONPatch(json: event.patch ?? [])
            } catch {
                throw WireError(.patchFailed, "event \(event.seq): the patch does not apply to the session's state: \(error)")
            }
            if event.coalesced && patch.isEmpty && expected > 0 {
                logEvent = builder.skipped(action: event.action, at: at, durationNs: event.durationNs, cause: event.cause)
            } else if expected == 0 {
                var state = builder.state
                do {
                    try state.apply(patch, limits: stateLimits)
                } catch {
                    throw refusal(error, seq: event.seq)
                }
                let bytes = try checkWhole(state, seq: event.seq)
                logEvent = builder.next(action: event.action, state: state, at: at, durationNs: event.durationNs,
                                        cause: event.cause, coalesced: event.coalesced)
                session.stateBytes = bytes
            } else {
                // The app's patch is the forward patch; the undo of applying it in place is the
                // inverse, so nothing is diffed and the new state is hashed once. The limits are
                // checked operation by operation: a patch that would nest too deep or grow too
                // large fails before it has built anything big.
                var state = builder.state
                var inverse: JSONPatch
                do {
                    inverse = try state.applyReturningInverse(patch, limits: stateLimits)
                } catch {
                    throw refusal(error, seq: event.seq)
                }
                let (hash, size) = state.hashAndCanonicalSize(builder.hashVersion)
                guard hash == event.hash else {
                    throw WireError(.hashMismatch, "event \(event.seq): the state after it hashes to \(wireHash(hash)), the event says \(wireHash(event.hash))")
                }
                try checkSize(size, seq: event.seq)
                // The inverse keeps every value the patch overwrote, so a small patch that
                // overwrites one large value many times has a huge inverse. It never needs to be
                // larger than the state before: past that, one `replace` of the whole document
                // takes the state back just as well.
                let before = session.stateBytes ?? builder.state.hashAndCanonicalSize(builder.hashVersion).size
                if !inverse.isEmpty, inverse.json.measure(byteBudget: before + 64).bytes > before + 64 {
                    inverse = JSONPatch([.replace(path: JSONPointer(tokens: []), value: builder.state)])
                }
                logEvent = builder.next(action: event.action, state: state, forward: patch.isEmpty ? [] : (event.patch ?? []),
                                        inverse: inverse.isEmpty ? [] : inverse.json, hash: hash, at: at,
                                        durationNs: event.durationNs, cause: event.cause, coalesced: event.coalesced)
                session.stateBytes = size
            }
        }
        guard logEvent.hash == event.hash else {
            throw WireError(.hashMismatch, "event \(event.seq): the state after it hashes to \(wireHash(logEvent.hash)), the event says \(wireHash(event.hash))")
        }
        session.builder = builder
        logEvent.nonFinite = event.nonFinite
        logEvent.site = event.site.map { SendSite(file: $0.file, line: $0.line, function: $0.function) }
        if pendingSession !== session {
            flushPending()
            pendingSession = session
        }
        pendingEvents.append(logEvent)
        hub.publish(event: event, frame: frame, session: session.uuid, sessionID: session.id, actionType: logEvent.actionType)
        return true
    }

    /// The wire error for a patch refused while applying: too deep, too large or not applicable.
    private func refusal(_ error: JSONPatchError, seq: Int64) -> WireError {
        switch error.reason {
        case .tooDeep:
            return WireError(.stateTooDeep, "event \(seq): \(error.operationLabel) would nest the state deeper than \(stateLimits.maxDepth) levels, which the log could not read back; nothing was stored")
        case .tooLarge:
            return WireError(.stateTooLarge, "event \(seq): \(error.operationLabel) would add more than the server's --max-state of \(stateLimits.maxAddedBytes ?? 0) bytes to the state; nothing was stored")
        default:
            return WireError(.patchFailed, "event \(seq): the patch does not apply to the session's state: \(error)")
        }
    }

    /// Checks a whole state an app sent (a keyframe, or seq 0) against the limits; returns its
    /// estimated compact size.
    private func checkWhole(_ state: JSONValue, seq: Int64) throws(WireError) -> Int {
        let maxBytes = stateLimits.maxAddedBytes ?? .max
        let (bytes, depth) = state.measure(byteBudget: maxBytes, depthBudget: stateLimits.maxDepth)
        if depth > stateLimits.maxDepth {
            throw WireError(.stateTooDeep, "event \(seq): the state nests deeper than \(stateLimits.maxDepth) levels, which the log could not read back; nothing was stored")
        }
        try checkSize(bytes, seq: seq)
        return bytes
    }

    private func checkSize(_ bytes: Int, seq: Int64) throws(WireError) {
        let maxBytes = stateLimits.maxAddedBytes ?? .max
        guard bytes <= maxBytes else {
            throw WireError(.stateTooLarge, "event \(seq): the state after it is more than \(maxBytes) bytes, over the server's --max-state; nothing was stored")
        }
    }

    /// Hands the events validated since the last call to the writer in one batch (all of them
    /// passed their checks, so the batch is whole), acked cumulatively once it commits.
    private func flushPending() {
        pendingBytes = 0
        guard let session = pendingSession else { return }
        pendingSession = nil
        guard let first = pendingEvents.first?.seq, let last = pendingEvents.last?.seq else { return }
        let events = pendingEvents
        pendingEvents = []
        let acks = session.acks
        guard let writer else { return }
        writer.append(events) { result in
            switch result {
            case .success:
                acks.committed(last)
            case .failure(let error):
                session.broken = true
                let which = first == last ? "event \(last)" : "events \(first)–\(last)"
                // A batch that follows a refused one finds the log short of its first seq: the
                // cause is the refusal before it, not the app.
                if case .seqOutOfOrder(_, let expected, let found) = error.kind, found > expected {
                    acks.send(WireError(.storage, "\(which) could not be stored: the log refused the events before them (from seq \(expected)); say hello again to resume"))
                } else {
                    acks.send(WireError(.storage, "\(which) could not be stored: \(error)"))
                }
            }
        }
    }

    private func release(_ session: LiveSession, change: InspectorPush.SessionChange?) {
        sessions[session.id] = nil
        live.withLock { live in
            if live[session.id] === session.connection { live[session.id] = nil }
        }
        if let info = try? reader.session(id: session.id) {
            hub.publish(change: change ?? .ended, session: wireSession(info, live: false))
        }
    }
}

/// A stored session as the inspector protocol shows it.
func wireSession(_ info: SessionInfo, live: Bool) -> WireSession {
    WireSession(id: info.id, uuid: info.uuid, app: info.app, startedAt: info.startedAt.timeIntervalSince1970,
                endedAt: info.endedAt?.timeIntervalSince1970, live: live, eventCount: info.eventCount,
                lastSeq: info.lastSeq, replayOf: info.replayOf, meta: info.meta, run: info.run)
}
