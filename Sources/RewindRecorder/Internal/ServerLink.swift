import Foundation
import RewindJSON
import RewindLog
import RewindWire
import RewindSupport

/// One session's connection to `rewind serve`: hello, welcome, events, acks, reconnects.
///
/// Everything that changes is in `state`, under its lock; nothing here waits on the network. The
/// recorder's thread appends and sends; each connection's thread or queue delivers welcome, acks
/// and commands. A new connection (of the sink's ``ServerTransport``) is made for every attempt,
/// and callbacks from an older one are ignored.
///
/// With several servers, the link stays on the one that works and moves to the next
/// (``ServerRotation``) when a connect fails, the connection closes, or the server cannot store
/// (`read-only`, `storage`). The session resumes from the `nextSeq` of the server it reaches;
/// one that lacks events another server acknowledged gets them from the local log
/// (ServerLink+Restore.swift). What is sent, and what is withheld from a server that would
/// refuse it, is ServerLink+Sending.swift.
///
/// The sink hears from the link (acks for its local log, welcomes, failures, commands) only
/// after the link's lock is released: ``change(_:)`` collects those notes and delivers them.
final class ServerLink: @unchecked Sendable {
    enum Phase {
        /// `restoring`: welcomed by a server that lacks events another server acknowledged;
        /// they are being read back from the local log. `ending`: every event acknowledged and
        /// `end` sent; waiting for the server's `ended`, after which the session is delivered.
        case connecting, awaitingWelcome, restoring, streaming, ending, waiting, finished
    }

    let session: RecordingSession
    private let transport: ServerTransport
    /// One per server, in the order they are tried; never empty.
    let requests: [TransportRequest]
    let failures: @Sendable (TransportFailure, URL) -> Void
    let commands: @Sendable (Command, ServerLink) -> Void
    /// Flushes and deliveries wait here for the acknowledged seq, the phase, or (a delivery that
    /// gives up on servers that never answered) the welcomes and rounds to change; ``change(_:)``
    /// wakes them when one does.
    let state: Condition<State>
    /// Where the link's timers (a retry's backoff, the gathering window, the wait for `ended`)
    /// and its work off the lock run: a serial queue of its own, which libdispatch gives a thread
    /// of its own when it has work. The global queue has one thread a core on Linux, and an app
    /// that holds them (or Swift's pool on it) would hold a reconnection back.
    let queue = DispatchQueue(label: "rewind.server-link")

    struct State {
        var events: UnackedEvents
        var phase = Phase.waiting
        var client: (any TransportConnection)?
        var attempt = 0
        var rotation: ServerRotation
        /// The server (index in `requests`) the current or next attempt goes to.
        var server: Int { rotation.current }
        /// The server whose acks the link last had (named when another one lacks what it acked).
        var ackedBy: URL?
        /// Servers already said to lack events this link no longer holds.
        var reportedGaps: Set<Int> = []
        /// The attempt whose end is being handled (its second end, if any, is ignored).
        var endedAttempt = 0
        var ended = false
        var connections = 0
        var lastError: String?
        var lastConnectFailure: String?
        /// The highest seq sent on this connection (from `welcome`'s `nextSeq - 1`): an ack past
        /// it is a claim the server cannot make.
        var sentThrough: Int64 = -1
        /// Why the server refused an event on the last connection; the next one withholds it.
        var refusal: String?
        /// How many hellos a server refused as not the session's owner (`not-owner`).
        var ownerRefusals = 0
        /// The first seq appended but not yet sent, while events are gathered into a batch.
        var gatheredFrom: Int64?
        var gatherScheduled = false
        /// When events last went out (``MonotonicClock`` nanoseconds).
        var lastSendAt: Int64 = 0
        /// Holds the link while an ended session is still being delivered, so that it outlives
        /// the recorder and the sink.
        var delivering: ServerLink?
        /// The connection that carried `end`, kept so a caller can wait for its close to finish.
        var closingClient: (any TransportConnection)?
        /// Whether an ended session says `end` once delivered; a session delivered from the
        /// local log after its app is gone, which never ended there, only closes its connection.
        var saysEnd = true
        /// When the app ended the session (seconds since 1970), said with `end`.
        var endedAt: Double?
        /// What the sink is to hear once the lock is released (``change(_:)`` delivers it).
        var notes: [Note] = []

        /// What the waiters look at: ``change(_:)`` wakes them when any of it changes.
        var watched: Watched {
            Watched(ackedThrough: events.ackedThrough, phase: phase, connections: connections,
                    triedEveryServer: rotation.triedEveryServer)
        }
    }

    /// What ``waitForAcks(until:throughOutages:)`` and ``waitUntilDelivered(until:unlessUnanswered:)``
    /// wait on.
    struct Watched: Equatable {
        var ackedThrough: Int64
        var phase: Phase
        var connections: Int
        var triedEveryServer: Bool
    }

    /// The errors that refuse one event for what it holds, which resending cannot change.
    static func refusesAnEvent(_ code: WireError.Code) -> Bool {
        switch code {
        case .hashMismatch, .patchFailed, .stateTooDeep, .stateTooLarge: true
        default: false
        }
    }
    /// Hears each seq the server acknowledges, with that server (on the connection's thread):
    /// the local log records it.
    let acknowledged: (@Sendable (Int64, URL) -> Void)?
    /// Reads back the session's events from the first seq to before the second (from a
    /// keyframe at or before the first) for a server that lacks events another acknowledged:
    /// the local log. `nil` when the events live in memory only.
    let history: (@Sendable (Int64, Int64) throws -> [LogEvent])?
    /// Hears the index of each server that welcomes the session, with the lock held: it must
    /// take no lock that is ever held while this link's is taken.
    let welcomed: (@Sendable (Int) -> Void)?

    /// `failures` hears every failed attempt to connect, with the server it tried (the sink
    /// reports the first of each server). The first attempt goes to `requests[startAt]`.
    init(session: RecordingSession, transport: ServerTransport, requests: [TransportRequest], startAt: Int = 0,
         capacity: Int,
         commands: @escaping @Sendable (Command, ServerLink) -> Void,
         failures: @escaping @Sendable (TransportFailure, URL) -> Void,
         acknowledged: (@Sendable (Int64, URL) -> Void)? = nil,
         history: (@Sendable (Int64, Int64) throws -> [LogEvent])? = nil,
         welcomed: (@Sendable (Int) -> Void)? = nil) {
        precondition(!requests.isEmpty, "a link needs a server")
        self.session = session
        self.transport = transport
        self.requests = requests
        self.failures = failures
        self.commands = commands
        self.acknowledged = acknowledged
        self.history = history
        self.welcomed = welcomed
        self.state = Condition(State(events: UnackedEvents(capacity: capacity),
                                     rotation: ServerRotation(count: requests.count, startAt: startAt)))
    }

    /// What the sink hears from a link, collected under the lock and delivered after it.
    enum Note {
        /// The server acknowledged through `seq` (the local log marks it).
        case acknowledged(Int64, URL)
        /// `servers[index]` welcomed the session.
        case welcomed(Int)
        /// A sentence about the session's events (withheld, refused, lacking), for the report.
        case report(String, URL)
        /// A command for the app.
        case command(Command)
    }

    /// Runs `body` under the lock; then, the lock released, gives the sink what `body` noted
    /// (``Note``) and wakes the waiters when it changed what they wait for: the acknowledged seq,
    /// the phase, the welcomes or the rounds tried. The waiters wake after the notes, so one that
    /// sees a session delivered sees its local log told.
    @discardableResult
    func change<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, notes, changed) = state.withLock { state in
            let watched = state.watched
            let result = body(&state)
            defer { state.notes = [] }
            return (result, state.notes, state.watched != watched)
        }
        deliver(notes)
        if changed { state.update(waking: .all) { _ in } }
        return result
    }

    /// Gives the sink what a change noted, in order, on this thread; sentences for the report go
    /// on together to the global queue (the app's `report` may take its time).
    private func deliver(_ notes: [Note]) {
        var sentences: [(String, URL)] = []
        for note in notes {
            switch note {
            case .acknowledged(let seq, let url): acknowledged?(seq, url)
            case .welcomed(let index): welcomed?(index)
            case .report(let sentence, let url): sentences.append((sentence, url))
            case .command(let command): commands(command, self)
            }
        }
        guard !sentences.isEmpty else { return }
        let failures = self.failures
        let said = sentences
        queue.async {
            for (sentence, url) in said { failures(TransportFailure(reason: sentence, aboutEvents: true), url) }
        }
    }

    /// For a session delivered from the local log: appended whole, then over once the server
    /// holds it, saying `end` only if the session ended where it was recorded.
    func deliverRecorded(_ recorded: [RecordedEvent], ended: Bool, at endedAt: Double? = nil, acknowledgedThrough: Int64 = -1) {
        state.withLock { state in
            state.saysEnd = ended
            // Every event already delivered (an end still to confirm): the link knows how far
            // the session goes, so a server's claim can be checked against it.
            if recorded.isEmpty { state.events.acknowledge(through: acknowledgedThrough) }
        }
        append(recorded)
        end(at: endedAt)
    }

    // MARK: What the sink asks

    func append(_ recorded: [RecordedEvent]) {
        guard let firstSeq = recorded.first?.event.seq else { return }
        change { state in
            for event in recorded { state.events.append(event.event) }
            guard state.phase == .streaming, state.client != nil else { return }
            // A drop of older states rewrites entries already sent; the server keeps what it got
            // (their `sentHash`), so only the new ones go out.
            let from = state.gatheredFrom ?? firstSeq
            let now = MonotonicClock.nanoseconds()
            if state.gatheredFrom == nil, now &- state.lastSendAt >= Self.gatherWindow {
                // Idle for a while: this one goes at once, so live latency stays as it was.
                sendGathered(from: from, now: now, &state)
                return
            }
            // Events coming faster than one a millisecond: the ones of the next millisecond go
            // together, as one `events` batch, which costs the server one frame instead of several.
            state.gatheredFrom = from
            guard !state.gatherScheduled else { return }
            state.gatherScheduled = true
            let wait = Self.gatherWindow &- min(Self.gatherWindow, now &- state.lastSendAt)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(max(wait, 100_000)))) { [weak self] in
                self?.sendGatheredNow()
            }
        }
    }

    /// How long events that come close together are gathered into one batch: 1 ms.
    static let gatherWindow: Int64 = 1_000_000

    /// The gathering timer fired: what was gathered goes out.
    private func sendGatheredNow() {
        change { state in
            state.gatherScheduled = false
            guard let from = state.gatheredFrom else { return }
            guard state.phase == .streaming, state.client != nil else {
                // A reconnect resends from the server's `nextSeq` anyway.
                state.gatheredFrom = nil
                return
            }
            sendGathered(from: from, now: MonotonicClock.nanoseconds(), &state)
        }
    }

    /// Marks the session ended; `end` goes out once every event is acknowledged.
    func end(at endedAt: Double? = nil) {
        change { state in
            state.ended = true
            if let endedAt { state.endedAt = endedAt }
            if state.phase != .finished { state.delivering = self }
            finishIfDelivered(&state)
        }
    }

    /// The sink is going away: an ended session is still delivered, an open one is given up.
    func abandon() {
        if !state.withLock({ $0.ended }) { stop() }
    }

    /// Waits until every event appended so far is acknowledged or `deadline` passes; without
    /// `throughOutages`, gives up at once while waiting to reconnect (nothing can be acknowledged).
    func waitForAcks(until deadline: Deadline, throughOutages: Bool) -> Bool {
        let target = state.withLock { $0.events.lastSeq }
        let acked = state.withLock(when: { state in
            state.events.ackedThrough >= target || state.phase == .finished || (!throughOutages && state.phase == .waiting)
        }, deadline: deadline.nanoseconds) { state in
            state.events.ackedThrough >= target
        }
        return acked ?? false
    }

    /// Waits until the ended session's `end` has been written and its connection closed, or
    /// `deadline` passes; `false` when the session is not ended or not delivered by then. With
    /// `unlessUnanswered` (its events are safe in the local log), it gives up as soon as every
    /// server has been tried and none ever welcomed the session: there is no point waiting for
    /// servers that never answered, but while the first round is under way (a connect in
    /// flight, the next server of a list about to be tried) it may still deliver.
    func waitUntilDelivered(until deadline: Deadline, unlessUnanswered: Bool = false) -> Bool {
        let outcome = state.withLock(when: { state in
            !state.ended || state.phase == .finished
                || (unlessUnanswered && state.connections == 0 && state.rotation.triedEveryServer)
        }, deadline: deadline.nanoseconds) { state in
            (delivered: state.ended && state.phase == .finished && state.events.ackedThrough >= state.events.lastSeq,
             closing: state.closingClient)
        }
        guard let outcome, outcome.delivered else { return false }
        guard let closing = outcome.closing else { return true }
        return closing.waitUntilFinished(timeout: deadline.remaining)
    }

    /// Whether the link is over (delivered or given up) and its last connection has closed;
    /// lets that connection go once it has.
    var isOver: Bool {
        state.withLock { state in
            guard state.phase == .finished else { return false }
            if let closing = state.closingClient {
                guard closing.isFinished else { return false }
                state.closingClient = nil
            }
            return true
        }
    }

    /// Gives up: closes the connection and stops reconnecting (what is unacknowledged is lost).
    func stop() {
        let client = change { state in
            defer {
                state.client = nil
                state.phase = .finished
                state.delivering = nil
            }
            return state.client
        }
        client?.close(goingAway: true)
    }

    /// Sends a command's result on the current connection; lost if it is down.
    func reply(_ result: AppMessage.CommandResult) {
        let client = state.withLock { $0.phase == .streaming ? $0.client : nil }
        _ = client?.send(text: AppMessage.result(result).json.serialized())
    }

    var status: ServerLinkStatus {
        state.withLock { state in
            ServerLinkStatus(connected: state.phase == .streaming, unacked: state.events.count, droppedStates: state.events.droppedStates,
                             connections: state.connections, attempts: state.attempt, finished: state.phase == .finished,
                             lastError: state.lastError, lastConnectFailure: state.lastConnectFailure,
                             ackedThrough: state.events.ackedThrough, lastSeq: state.events.lastSeq,
                             server: requests[state.server].url, triedEveryServer: state.rotation.triedEveryServer,
                             ownerRefusals: state.ownerRefusals)
        }
    }

    // MARK: The connection

    func connect() {
        let attempt = change { state -> (client: any TransportConnection, listener: AttemptListener)? in
            guard state.phase == .waiting else { return nil }
            state.attempt += 1
            let client = transport.makeConnection(requests[state.server])
            state.client = client
            state.phase = .connecting
            return (client, AttemptListener(link: self, attempt: state.attempt))
        }
        guard let (client, listener) = attempt else { return }
        // Outside the lock: a transport may report a failure before `open` returns.
        client.open(listener: listener)
    }

    /// With the lock held (in ``change(_:)``, whose phase change wakes a flush waiting on this
    /// connection: it gives up now; and a delivery waiting for a round to end, when this one
    /// does): connects again, where and when the rotation says.
    func scheduleRetry(_ move: ServerRotation.Move, _ state: inout State) {
        state.phase = .waiting
        state.client = nil
        let before = state.server
        let delay = state.rotation.move(move)
        // A refusal is the previous server's: another may hold another `nextSeq`.
        if state.server != before { state.refusal = nil }
        guard let delay else {
            queue.async { [weak self] in self?.connect() }
            return
        }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
    }

    fileprivate func didConnect(attempt: Int) {
        change { state in
            guard attempt == state.attempt, state.phase == .connecting, let client = state.client else { return }
            state.phase = .awaitingWelcome
            let hello = AppMessage.Hello(
                session: session.uuid, app: session.app, version: session.meta["version"]?.stringValue,
                meta: session.meta.objectValue ?? [:],
                lastAckedSeq: state.events.ackedThrough >= 0 ? state.events.ackedThrough : nil,
                startedAt: session.startedAt.timeIntervalSince1970, replayOf: session.replayOf, run: session.run,
                hashVersion: session.hashVersion, secret: session.secret)
            _ = client.send(text: AppMessage.hello(hello).json.serialized())
        }
    }

    fileprivate func didEnd(attempt: Int, failure: TransportFailure? = nil) {
        // Only the first end of an attempt counts (a transport may say it failed and closed).
        let url = state.withLock { state -> URL? in
            guard attempt == state.attempt, state.phase != .finished, state.phase != .waiting,
                  state.endedAttempt != attempt else { return nil }
            state.endedAttempt = attempt
            return requests[state.server].url
        }
        guard let url else { return }
        // Said before the link moves on (off the lock: the sink takes its own), so whoever sees
        // the link give up or move (an app about to exit, a wait on it) sees the failure said.
        if let failure { failures(failure, url) }
        change { state in
            // Meanwhile the link may have been stopped.
            guard attempt == state.attempt, state.phase != .finished, state.phase != .waiting else { return }
            if let failure { state.lastConnectFailure = failure.reason }
            if failure?.isPermanent == true {
                // This transport cannot run here: retrying cannot help.
                state.client = nil
                state.phase = .finished
                state.delivering = nil
            } else {
                // Welcomed (streaming, or reading back what this server lacks) and then closed:
                // the server went away, and the next one is tried after the backoff.
                scheduleRetry(state.phase == .streaming || state.phase == .restoring || state.phase == .ending ? .nextWelcomed : .nextUnwelcomed, &state)
            }
        }
    }

    fileprivate func didReceive(_ bytes: [UInt8], attempt: Int) {
        guard let message = try? ServerToApp(frame: bytes) else { return }
        change { state in
            guard attempt == state.attempt, let client = state.client else { return }
            let url = requests[state.server].url
            switch message {
            case .welcome(_, _, let nextSeq, let limits):
                guard state.phase == .awaitingWelcome else { break }
                // A server cannot hold what was never recorded: its word is not taken, and the
                // marks do not move (a fake or broken server would have the device forget events).
                guard nextSeq >= 0, nextSeq <= state.events.lastSeq + 1 else {
                    distrust("said it holds session \(session.uuid) through seq \(nextSeq - 1), past the last one recorded (\(state.events.lastSeq))",
                             url: url, client: client, &state)
                    break
                }
                state.connections += 1
                state.sentThrough = nextSeq - 1
                // What this server accepts; one that does not say accepts its defaults.
                state.events.limits = limits ?? .unstated
                // Noted before any ack it is followed by, so the sink knows it first.
                state.notes.append(.welcomed(state.server))
                let firstHeld = state.events.firstHeldSeq
                guard nextSeq < firstHeld else {
                    resume(from: nextSeq, on: client, &state)
                    break
                }
                // This server lacks events another one acknowledged (a server on a log of its own,
                // or one that lost them): they come back from the local log, off this thread.
                guard let history else {
                    passOver(lacking: nextSeq, before: firstHeld, on: client,
                             why: "and this sink keeps no local log to send them again", &state)
                    break
                }
                state.phase = .restoring
                let attempt = state.attempt
                let limits = state.events.limits
                queue.async { [weak self] in
                    // Read and made into entries here, off the lock: the recorder's thread appends on.
                    let restored = Result { try history(nextSeq, firstHeld) }.map {
                        UnackedEvents.restoring($0, from: nextSeq, before: firstHeld, limits: limits)
                    }
                    self?.didRestore(restored, from: nextSeq, attempt: attempt)
                }
            case .ack(let seq):
                // While restoring nothing was sent on this connection yet.
                guard state.phase == .streaming else { break }
                guard seq <= state.sentThrough else {
                    distrust("acknowledged seq \(seq) of session \(session.uuid), past the last one sent to it (\(state.sentThrough))",
                             url: url, client: client, &state)
                    break
                }
                // Progress: the next failure starts again from the first delay.
                state.rotation.progressed()
                state.events.acknowledge(through: seq)
                state.ackedBy = url
                state.notes.append(.acknowledged(seq, url))
                finishIfDelivered(&state)
            case .command(let command):
                // Performed off the lock.
                state.notes.append(.command(command))
            case .ended:
                guard state.phase == .ending else { break }
                finishEnded(&state)
            case .error(let error):
                // Named with its server: with several, the one that said it.
                state.lastError = requests.count > 1 ? "\(url.absoluteString): \(error.message)" : error.message
                if Self.refusesAnEvent(error.code), state.phase == .streaming {
                    // The server refused one of the events it was sent (its patch, its hash, its
                    // state's depth or size); every later one would be refused as a gap, and any
                    // server would refuse it too. Start over on the same server: the next
                    // connection sends the refused event without its state change (the next state
                    // goes whole), so no connection resends what was refused.
                    state.refusal = error.message
                    client.close(goingAway: true)
                    scheduleRetry(.same, &state)
                } else if error.code == .storage, state.phase == .streaming || state.phase == .awaitingWelcome {
                    // The server could not store what it was sent, or open the session (its disk
                    // is full, its log read-only): the events stay here, and the next server (this
                    // one, when it is the only one) resumes from its `nextSeq`. Another server may
                    // have room: a log of its own, or a database that came back. The backoff keeps
                    // growing until a server acks again (``ServerRotation/progressed()``).
                    client.close(goingAway: true)
                    scheduleRetry(state.phase == .streaming ? .nextWelcomed : .nextUnwelcomed, &state)
                } else if error.code == .readOnly, state.phase == .awaitingWelcome {
                    // A server run with --read-only never takes a session; the next one may.
                    client.close(goingAway: true)
                    scheduleRetry(.nextUnwelcomed, &state)
                } else if error.code == .notOwner, state.phase == .awaitingWelcome {
                    // The server holds the session under another secret (another device, or a
                    // copy of this log): it will say so again. Another server may not hold it.
                    state.ownerRefusals += 1
                    client.close(goingAway: true)
                    scheduleRetry(.nextUnwelcomed, &state)
                }
            }
        }
    }

    /// With the lock held: after the session ended and everything is acknowledged, says `end`
    /// (the phase change wakes the waiters).
    func finishIfDelivered(_ state: inout State) {
        guard state.ended, state.events.ackedThrough >= state.events.lastSeq, state.phase == .streaming,
              let client = state.client else { return }
        guard state.saysEnd else {
            close(client, &state)
            return
        }
        // Delivered once the server says the end is stored (`ended`): a server that went away
        // first gets `end` again from the next connection, or from the local log next run.
        _ = client.send(text: AppMessage.end(id: 2, at: state.endedAt).json.serialized())
        state.phase = .ending
        let attempt = state.attempt
        queue.asyncAfter(deadline: .now() + Self.endedTimeout) { [weak self] in
            self?.change { state in
                guard attempt == state.attempt, state.phase == .ending else { return }
                // A server from before `ended` never says it: taken at its word, as then.
                self?.finishEnded(&state)
            }
        }
    }

    /// How long a link waits for `ended` after `end` before it takes the session as delivered.
    static let endedTimeout: Double = 10

    /// With the lock held: the server holds the session's end (it said `ended`, or is taken at
    /// its word after ``endedTimeout``): the local log marks it delivered (one past its last seq: the end's own mark), and the
    /// connection closes.
    private func finishEnded(_ state: inout State) {
        guard let client = state.client else { return }
        state.notes.append(.acknowledged(state.events.lastSeq + 1, requests[state.server].url))
        close(client, &state)
    }

    /// With the lock held: the session is delivered; its connection closes.
    private func close(_ client: any TransportConnection, _ state: inout State) {
        client.close(goingAway: false)
        state.closingClient = client
        state.client = nil
        state.phase = .finished
        state.delivering = nil
    }
}

/// What a link reports to its sink.
struct ServerLinkStatus {
    var connected: Bool
    var ackedThrough: Int64 = -1
    var lastSeq: Int64 = -1
    var unacked: Int
    var droppedStates: Int
    var connections: Int
    var attempts: Int
    var finished: Bool
    var lastError: String?
    var lastConnectFailure: String?
    /// The server the link is on, or tries next.
    var server: URL
    /// Every server has been tried at least once (a round ended and the link waited).
    var triedEveryServer: Bool
    /// Hellos refused as not the session's owner.
    var ownerRefusals = 0

    init(connected: Bool, unacked: Int, droppedStates: Int, connections: Int, attempts: Int, finished: Bool,
         lastError: String?, lastConnectFailure: String?, ackedThrough: Int64, lastSeq: Int64, server: URL,
         triedEveryServer: Bool = false, ownerRefusals: Int = 0) {
        self.ownerRefusals = ownerRefusals
        self.server = server
        self.triedEveryServer = triedEveryServer
        self.connected = connected
        self.unacked = unacked
        self.droppedStates = droppedStates
        self.connections = connections
        self.attempts = attempts
        self.finished = finished
        self.lastError = lastError
        self.lastConnectFailure = lastConnectFailure
        self.ackedThrough = ackedThrough
        self.lastSeq = lastSeq
    }
}

/// Forwards one connection's callbacks to its link, tagged with the attempt they belong to.
private final class AttemptListener: TransportListener, Sendable {
    private weak let link: ServerLink?
    private let attempt: Int

    init(link: ServerLink, attempt: Int) {
        self.link = link
        self.attempt = attempt
    }

    func transportDidConnect() {
        link?.didConnect(attempt: attempt)
    }

    func transportDidFail(_ failure: TransportFailure) {
        link?.didEnd(attempt: attempt, failure: failure)
    }

    func transportDidReceive(_ bytes: [UInt8]) {
        link?.didReceive(bytes, attempt: attempt)
    }

    func transportDidClose() {
        link?.didEnd(attempt: attempt)
    }
}
