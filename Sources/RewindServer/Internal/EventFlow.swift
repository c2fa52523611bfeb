import RewindJSON
import RewindLog
import RewindReplay
import RewindSupport
import RewindWire

/// The event side of ``AppIngest``, on its queue: checks each event of a live session
/// (``EventCheck``), pushes it to the inspectors at once, and hands the events to the log's
/// writer in batches of one session, whose commit sends the app its ack.
final class EventFlow {
    /// `nil` for a server run with `--read-only` (it opens no session, so nothing comes here).
    private let writer: (any LogStoreWriter)?
    private let hub: InspectorHub
    /// What one event's state may reach: the deepest nesting the log reads back and `--max-state`.
    private let stateLimits: JSONPatchLimits
    /// Events checked in the current drain, not yet handed to the writer: all of one session.
    private var pendingSession: LiveSession?
    private var pendingEvents: [LogEvent] = []
    /// The size of the messages whose events are in `pendingEvents`.
    private var pendingBytes = 0

    /// The most events handed to the writer in one batch.
    static let batchEvents = 256
    /// The most message bytes handed to the writer in one batch (a larger event goes alone).
    static let batchBytes = 1 << 20

    /// What `--metrics` counts: events received and stored, commit times, batch sizes.
    private let metrics: ServerMetrics?

    init(writer: (any LogStoreWriter)?, hub: InspectorHub, metrics: ServerMetrics? = nil, stateLimits: JSONPatchLimits) {
        self.metrics = metrics
        self.writer = writer
        self.hub = hub
        self.stateLimits = stateLimits
    }

    /// Counts a message just handled toward the batch's bytes, when it left events in it.
    func counted(messageBytes: Int) {
        if !pendingEvents.isEmpty { pendingBytes += messageBytes }
    }

    /// The batch has reached its bound in events or bytes: hand it over.
    var isFull: Bool { pendingEvents.count >= Self.batchEvents || pendingBytes >= Self.batchBytes }

    /// Takes a batch's events in order, each exactly as an `event` of its own; the first one
    /// refused (or unreadable) stops the batch with its error, and the ones before it stand.
    /// Events already stored are acked once for the whole batch.
    func take(_ batch: WireEventBatch, session: LiveSession) throws(WireError) {
        var resent = false
        defer { if resent { session.acks.resend() } }
        for event in batch.events {
            // No frame to forward: each event's push is built on its own.
            if try !take(event, session: session, frame: nil, acknowledgingResend: false) { resent = true }
        }
        if let broken = batch.broken { throw broken }
    }

    /// Takes one event; `false` when the session already has it (then, with
    /// `acknowledgingResend`, the current ack is sent again).
    @discardableResult
    func take(_ event: WireEvent, session: LiveSession, frame: [UInt8]?,
                       acknowledgingResend: Bool = true) throws(WireError) -> Bool {
        let verdict: EventCheck.Verdict
        do {
            let expected = EventCheck.Session(builder: session.builder, stateBytes: session.stateBytes, broken: session.broken)
            verdict = try EventCheck.check(event, session: expected, limits: stateLimits)
        } catch {
            throw error.wireError
        }
        guard case .accepted(let logEvent, let after) = verdict else {
            // Already stored (or on its way): the ack covers it; nothing is stored twice.
            if acknowledgingResend { session.acks.resend() }
            return false
        }
        session.builder = after.builder
        session.stateBytes = after.stateBytes
        if pendingSession !== session {
            flush()
            pendingSession = session
        }
        pendingEvents.append(logEvent)
        hub.publish(event: event, frame: frame, session: session.uuid, sessionID: session.id, actionType: logEvent.actionType)
        return true
    }

    /// Hands the events validated since the last call to the writer in one batch (all of them
    /// passed their checks, so the batch is whole), acked cumulatively once it commits.
    func flush() {
        pendingBytes = 0
        guard let session = pendingSession else { return }
        pendingSession = nil
        guard let first = pendingEvents.first?.seq, let last = pendingEvents.last?.seq else { return }
        let events = pendingEvents
        pendingEvents = []
        let acks = session.acks
        guard let writer else { return }
        let metrics = self.metrics
        metrics?.received(events: events.count)
        let handedAt = MonotonicClock.nanoseconds()
        writer.append(events) { result in
            switch result {
            case .success:
                metrics?.stored(events: events.count, after: Double(MonotonicClock.nanoseconds() - handedAt) / 1e9)
                acks.committed(last)
            case .failure(let error):
                session.broken = true
                let which = first == last ? "event \(last)" : "events \(first)–\(last)"
                // A batch that follows a refused one finds the log short of its first seq: the
                // cause is the refusal before it, not the app.
                metrics?.sentError(code: WireError.Code.storage.rawValue)
                if case .seqOutOfOrder(_, let expected, let found) = error.kind, found > expected {
                    acks.send(WireError(.storage, "\(which) could not be stored: the log refused the events before them (from seq \(expected)); say hello again to resume"))
                } else {
                    acks.send(WireError(.storage, "\(which) could not be stored: \(error)"))
                }
            }
        }
    }

}
