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
/// With several servers (equivalent ones: instances on one database), the link stays on the one
/// that works and moves to the next when a connect fails, the connection closes, or the server
/// cannot store (`read-only`, `storage`). Within a round (every server tried once since the last
/// wait) the next is tried at once after a failed connect; a round that reached none waits the
/// backoff, and so does the move after a welcomed connection ends, so a server that welcomes
/// and drops at once never makes the link spin. The session resumes from the `nextSeq` of the
/// server it reaches; one that lacks events another server acknowledged gets them from the
/// local log (`history`), or, with none, is passed over with one sentence.
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
    private let requests: [TransportRequest]
    private let failures: @Sendable (TransportFailure, URL) -> Void
    private let commands: @Sendable (Command, ServerLink) -> Void
    /// Flushes and deliveries wait here for the acknowledged seq, the phase, or (a delivery that
    /// gives up on servers that never answered) the welcomes and rounds to change; ``change(_:)``
    /// wakes them when one does.
    private let state: Condition<State>

    private struct State {
        var events: UnackedEvents
        var phase = Phase.waiting
        var client: (any TransportConnection)?
        var attempt = 0
        var backoff = ReconnectBackoff()
        /// The server (index in `requests`) the current or next attempt goes to.
        var server: Int
        /// Servers that may still be tried at once, without waiting, in this round.
        var untried: Int
        /// The server whose acks the link last had (named when another one lacks what it acked).
        var ackedBy: URL?
        /// Servers already said to lack events this link no longer holds.
        var reportedGaps: Set<Int> = []
        /// A whole round of servers has been tried (the link waited before trying again).
        var triedEveryServer = false
        /// The attempt whose end is being handled (its second end, if any, is ignored).
        var endedAttempt = 0
        var ended = false
        var connections = 0
        var lastError: String?
        var lastConnectFailure: String?
        /// The server answered `storage` and no ack since: reconnects back off instead of resetting.
        var storageTrouble = false
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
        /// When events last went out (uptime nanoseconds).
        var lastSendAt: UInt64 = 0
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

        /// What the waiters look at: ``change(_:)`` wakes them when any of it changes.
        var watched: Watched {
            Watched(ackedThrough: events.ackedThrough, phase: phase, connections: connections, triedEveryServer: triedEveryServer)
        }
    }

    /// What ``waitForAcks(until:throughOutages:)`` and ``waitUntilDelivered(until:unlessUnanswered:)``
    /// wait on.
    private struct Watched: Equatable {
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
    private let acknowledged: (@Sendable (Int64, URL) -> Void)?
    /// Reads back the session's events from the first seq to before the second (from a
    /// keyframe at or before the first) for a server that lacks events another acknowledged:
    /// the local log. `nil` when the events live in memory only.
    private let history: (@Sendable (Int64, Int64) throws -> [LogEvent])?
    /// Hears the index of each server that welcomes the session, with the lock held: it must
    /// take no lock that is ever held while this link's is taken.
    private let welcomed: (@Sendable (Int) -> Void)?

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
                                     server: requests.indices.contains(startAt) ? startAt : 0,
                                     untried: requests.count - 1))
    }

    /// Runs `body` under the lock and wakes the waiters when it changed what they wait for: the
    /// acknowledged seq, the phase, the welcomes or the rounds tried.
    @discardableResult
    private func change<Result>(_ body: (inout State) -> Result) -> Result {
        state.update { state, waking in
            let watched = state.watched
            defer { if state.watched != watched { waking = .all } }
            return body(&state)
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
            let now = DispatchTime.now().uptimeNanoseconds
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
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(max(wait, 100_000)))) { [weak self] in
                self?.sendGatheredNow()
            }
        }
    }

    /// How long events that come close together are gathered into one batch: 1 ms.
    static let gatherWindow: UInt64 = 1_000_000

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
            sendGathered(from: from, now: DispatchTime.now().uptimeNanoseconds, &state)
        }
    }

    /// With the lock held: sends every pending event from `seq` on.
    private func sendGathered(from seq: Int64, now: UInt64, _ state: inout State) {
        state.gatheredFrom = nil
        state.lastSendAt = now
        guard let client = state.client else { return }
        sendEvents(in: state.events.indices(from: seq), on: client, serverHash: nil, &state)
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
    func waitForAcks(until deadline: Date, throughOutages: Bool) -> Bool {
        let target = state.withLock { $0.events.lastSeq }
        let acked = state.withLock(when: { state in
            state.events.ackedThrough >= target || state.phase == .finished || (!throughOutages && state.phase == .waiting)
        }, deadline: MonotonicClock.deadline(after: deadline.timeIntervalSinceNow)) { state in
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
    func waitUntilDelivered(until deadline: Date, unlessUnanswered: Bool = false) -> Bool {
        let outcome = state.withLock(when: { state in
            !state.ended || state.phase == .finished
                || (unlessUnanswered && state.connections == 0 && state.triedEveryServer)
        }, deadline: MonotonicClock.deadline(after: deadline.timeIntervalSinceNow)) { state in
            (delivered: state.ended && state.phase == .finished && state.events.ackedThrough >= state.events.lastSeq,
             closing: state.closingClient)
        }
        guard let outcome, outcome.delivered else { return false }
        guard let closing = outcome.closing else { return true }
        let remaining = max(0, deadline.timeIntervalSinceNow)
        return closing.waitUntilFinished(timeout: .nanoseconds(Int64(remaining * 1e9)))
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
                             server: requests[state.server].url, triedEveryServer: state.triedEveryServer,
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

    /// Why the link connects again: to the same server, or to the next one.
    private enum Retry {
        /// The same server: an event it refused goes again without its state change (any
        /// server would refuse it as it was).
        case same
        /// The next server, at once while this round has servers left: the connect failed or the
        /// server refused the session at `hello` (`read-only`, `storage`).
        case nextUnwelcomed
        /// The next server after the backoff: a welcomed connection ended, or could not take
        /// what was sent (closing, or its queue full).
        case nextWelcomed
    }

    /// With the lock held (in ``change(_:)``, whose phase change wakes a flush waiting on this
    /// connection: it gives up now; and a delivery waiting for a round to end, when this one
    /// does).
    private func scheduleRetry(_ retry: Retry, _ state: inout State) {
        state.phase = .waiting
        state.client = nil
        if retry != .same, requests.count > 1 {
            state.server = (state.server + 1) % requests.count
            // A refusal is the previous server's: another may hold another `nextSeq`.
            state.refusal = nil
        }
        if retry == .nextUnwelcomed, state.untried > 0 {
            state.untried -= 1
            DispatchQueue.global().async { [weak self] in self?.connect() }
            return
        }
        // A new round, after the wait: every server may be tried once more at once.
        state.untried = requests.count - 1
        state.triedEveryServer = true
        let delay = state.backoff.nextDelay()
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
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
        let command = change { state -> Command? in
            guard attempt == state.attempt, let client = state.client else { return nil }
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
                // Said at once (the sink's lock for it is a leaf), so it is known before any ack.
                welcomed?(state.server)
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
                DispatchQueue.global().async { [weak self] in
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
                state.storageTrouble = false
                // Progress: the next failure starts again from the first delay.
                state.backoff.reset()
                state.events.acknowledge(through: seq)
                state.ackedBy = url
                acknowledged?(seq, url)
                finishIfDelivered(&state)
            case .command(let command):
                // Performed off the lock.
                return command
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
                    // growing until a server acks again.
                    state.storageTrouble = true
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
            return nil
        }
        if let command { commands(command, self) }
    }

    /// With the lock held: the server claimed what it cannot hold (`claim`, a sentence's end):
    /// said once as the link's last error, the connection closed, and the next server tried
    /// after the backoff. Nothing it said is kept.
    private func distrust(_ claim: String, url: URL, client: any TransportConnection, _ state: inout State) {
        let sentence = "\(url.absoluteString) \(claim); its word is not taken (is it the server this app streams to?), and the events stay on this device"
        state.lastError = sentence
        client.close(goingAway: false)
        scheduleRetry(.nextWelcomed, &state)
        report(sentence, server: url)
    }

    /// With the lock held: the server holds everything before `nextSeq`; the rest goes now.
    private func resume(from nextSeq: Int64, on client: any TransportConnection, _ state: inout State) {
        let url = requests[state.server].url
        // Streaming again: a full round. The backoff starts over only once the server
        // acknowledges something (`ack`): a server that welcomes and drops at once, again and
        // again, is retried 0.1 s doubling to 5 s apart, as for one that never answers.
        state.untried = requests.count - 1
        // The server stores what it holds before `nextSeq`: its state is the one the last
        // sent version of `nextSeq - 1` gave.
        let holdsHash = state.events.indices(from: nextSeq - 1).first.flatMap { index in
            state.events[index].seq == nextSeq - 1 ? state.events[index].sentHash ?? state.events[index].hash : nil
        }
        if nextSeq > 0 {
            state.events.acknowledge(through: nextSeq - 1)
            state.ackedBy = url
        }
        // -1 when the server has nothing yet: those who count hear what the server had.
        acknowledged?(nextSeq - 1, url)
        state.phase = .streaming
        if let refused = state.refusal {
            state.refusal = nil
            // The event the server stopped at is the one it refused.
            if let index = state.events.indices(from: nextSeq).first, state.events[index].seq == nextSeq {
                state.events.withhold(from: index)
                let sentence = "the server refused event \(nextSeq) of session \(session.uuid) (\(refused)); it is sent again without its state change, and the next state goes whole"
                state.lastError = sentence
                report(sentence, server: url)
            }
        }
        // Everything from `nextSeq` goes now, the gathered events with it.
        state.gatheredFrom = nil
        state.lastSendAt = DispatchTime.now().uptimeNanoseconds
        sendEvents(in: state.events.indices(from: nextSeq), on: client, serverHash: holdsHash ?? state.events.ackedHash, &state)
        finishIfDelivered(&state)
    }

    /// The events a server lacks came back from the local log (or could not).
    private func didRestore(_ restored: Result<UnackedEvents.Restored?, any Error>, from nextSeq: Int64, attempt: Int) {
        change { state in
            guard attempt == state.attempt, state.phase == .restoring, let client = state.client else { return }
            let firstHeld = state.events.firstHeldSeq
            switch restored {
            case .success(let entries):
                if let entries, state.events.restore(entries) {
                    resume(from: nextSeq, on: client, &state)
                } else {
                    passOver(lacking: nextSeq, before: firstHeld, on: client, why: "and the local log no longer holds them all", &state)
                }
            case .failure(let error):
                passOver(lacking: nextSeq, before: firstHeld, on: client,
                         why: "and the local log could not give them back (\(error))", &state)
            }
        }
    }

    /// With the lock held: the server lacks events `nextSeq..<firstHeld`, which this link can
    /// no longer send; said once per server, and the next server is tried.
    private func passOver(lacking nextSeq: Int64, before firstHeld: Int64, on client: any TransportConnection, why: String,
                          _ state: inout State) {
        let url = requests[state.server].url
        let range = nextSeq == firstHeld - 1 ? "event \(nextSeq)" : "events \(nextSeq)…\(firstHeld - 1)"
        let by = state.ackedBy.map { " \($0.absoluteString)" } ?? " a server"
        let next = requests.count > 1 ? "; trying the next server" : "; trying again later"
        let sentence = "\(url.absoluteString) lacks \(range) of session \(session.uuid), which\(by) acknowledged, \(why)\(next)"
        state.lastError = sentence
        if state.reportedGaps.insert(state.server).inserted { report(sentence, server: url) }
        client.close(goingAway: true)
        scheduleRetry(.nextWelcomed, &state)
    }

    /// Hands one sentence about the session's events to the sink, off the lock (the sink takes
    /// its own).
    private func report(_ sentence: String, server url: URL) {
        let failures = self.failures
        DispatchQueue.global().async { failures(TransportFailure(reason: sentence, aboutEvents: true), url) }
    }

    /// With the lock held: sends `range`, tracking the hash of the state the server will hold.
    ///
    /// Several events go in `events` batches (``EventFrames``), one alone as `event`. Nothing
    /// the server would refuse is sent: a state over its `maxState`, or an event over its
    /// `maxMessage`, is withheld (the event goes without its state change, the next state that
    /// fits goes whole) and said once in one sentence (`report`, ``ServerSink/lastServerError``);
    /// an action too large for any message goes as a placeholder.
    private func sendEvents(in range: Range<Int>, on client: any TransportConnection, serverHash: UInt64?, _ state: inout State) {
        // The server sent to (a failed send moves the link on before the reports go).
        let url = requests[state.server].url
        var holds = serverHash
            ?? (range.lowerBound > state.events.startIndex ? state.events[range.lowerBound - 1].sentHash : state.events.ackedHash)
        var frames = EventFrames(maxMessage: state.events.limits.maxMessage)
        // Sentences to report: one for each run of withheld events that starts here.
        var reports: [(seq: Int64, sentence: String)] = []
        func note(_ withheld: WithheldEvent) {
            let sentence = withheld.sentence(app: session.app, session: session.uuid)
            state.lastError = sentence
            if reports.last?.seq == withheld.seq {
                // The same event again (its action too large as well): say the later reason.
                reports[reports.count - 1].sentence = sentence
            } else if !state.events.reportedWithholding {
                state.events.reportedWithholding = true
                reports.append((withheld.seq, sentence))
            }
        }
        var index = range.lowerBound
        // A withheld state rewrites the entries after it (the newest then carries the whole
        // state), so the loop reads each entry as it reaches it.
        while index < range.upperBound {
            if let refusal = state.events.stateRefusal(at: index) {
                state.events.withhold(from: index)
                note(refusal)
            }
            var entry = state.events[index]
            var wire = WireEvent(seq: entry.seq, at: entry.at.timeIntervalSince1970, action: entry.action,
                                 hash: entry.hash, durationNs: entry.durationNs, cause: entry.cause,
                                 coalesced: entry.coalesced, nonFinite: entry.nonFinite,
                                 site: entry.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) })
            var stateful = true
            switch entry.body {
            case .patch(let patch): wire.patch = patch
            case .keyframe(let whole): wire.keyframe = whole
            case .dropped:
                // No state change goes with it: only the action's pointers still apply.
                stateful = false
                wire.nonFinite = entry.nonFinite.filter { $0.hasPrefix("/action") }
                wire.patch = []
                // Seq 0 withheld: the session starts from `null`.
                wire.hash = holds ?? (entry.seq == 0 ? JSONValue.null.hash(session.hashVersion) : entry.hash)
            }
            var members = wire.json(withType: false).serializedBytes(.compact)
            // Deeper than the server's parser reads: its frame (and every event batched with
            // it) would be refused whole as bad JSON.
            let depth = WithheldEvent.nesting(of: members)
            if depth > WithheldEvent.maxMemberDepth {
                if stateful {
                    state.events.withhold(from: index)
                    note(WithheldEvent(seq: entry.seq, reason: .tooDeep(depth: depth, limit: WithheldEvent.maxMemberDepth, action: false)))
                    continue
                }
                note(WithheldEvent(seq: entry.seq, reason: .tooDeep(depth: depth, limit: WithheldEvent.maxMemberDepth, action: true)))
                wire.action = WithheldEvent.placeholder(for: .null, bytes: members.count)
                wire.nonFinite = []
                members = wire.json(withType: false).serializedBytes(.compact)
            }
            let size = WireEventBatch.singleFrameSize(memberBytes: members.count)
            if size > state.events.limits.maxMessage {
                if stateful {
                    // Over the message limit with its state: withheld like a state too large.
                    state.events.withhold(from: index)
                    note(WithheldEvent(seq: entry.seq, reason: .messageTooLarge(bytes: size, limit: state.events.limits.maxMessage)))
                    continue
                }
                // The action alone is too large for any message the server reads.
                note(WithheldEvent(seq: entry.seq, reason: .actionTooLarge(bytes: size, limit: state.events.limits.maxMessage)))
                wire.action = WithheldEvent.placeholder(for: wire.action, bytes: size)
                wire.nonFinite = []
                members = wire.json(withType: false).serializedBytes(.compact)
            }
            if stateful { state.events.reportedWithholding = false }
            holds = wire.hash
            entry.sentHash = wire.hash
            state.sentThrough = max(state.sentThrough, entry.seq)
            state.events[index] = entry
            index += 1
            frames.add(members)
            if index == range.upperBound { frames.flush() }
            let ready = frames.take()
            if !ready.allSatisfy({ client.send(text: String(decoding: $0, as: UTF8.self)) }) {
                // The queue is full (the server stopped reading) or the connection is closing
                // (the server dropped it, which this may learn before the close itself): as for
                // a welcomed connection that ended, start over after the backoff on the next
                // server (this one when it is the only one), which resends from its `nextSeq`.
                client.close(goingAway: true)
                scheduleRetry(.nextWelcomed, &state)
                break
            }
        }
        guard !reports.isEmpty else { return }
        // Reported off this lock (the sink takes its own), in order.
        let failures = self.failures
        let sentences = reports.map(\.sentence)
        DispatchQueue.global().async {
            for sentence in sentences { failures(TransportFailure(reason: sentence, aboutEvents: true), url) }
        }
    }

    /// With the lock held: after the session ended and everything is acknowledged, says `end`
    /// (the phase change wakes the waiters).
    private func finishIfDelivered(_ state: inout State) {
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
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.endedTimeout) { [weak self] in
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
        acknowledged?(state.events.lastSeq + 1, requests[state.server].url)
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
