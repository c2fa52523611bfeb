import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// Whether a session takes an app's event, and the log event it makes: a pure function of the
/// event and the session as it stands, with no log, connection or lock in sight, so every
/// refusal can be tested on its own. App ingest applies the verdict.
package enum EventCheck {
    /// What a session expects of its next event.
    package struct Session: Sendable {
        /// The session's current state and the seq it expects next.
        package var builder: EventBuilder
        /// The current state's size as canonical compact JSON, when known (it is measured as the
        /// state is hashed); bounds the inverse of the next event.
        package var stateBytes: Int?
        /// The log refused an earlier event of the session, so the state above may be ahead of
        /// the log: nothing is taken until the app says hello again.
        package var broken = false

        package init(builder: EventBuilder, stateBytes: Int? = nil, broken: Bool = false) {
            self.builder = builder
            self.stateBytes = stateBytes
            self.broken = broken
        }
    }

    package enum Verdict {
        /// The session already has this seq (stored, or on its way): nothing is stored twice,
        /// and the ack covers it.
        case alreadyStored
        /// Taken: the event to store and the session after it.
        case accepted(LogEvent, Session)
    }

    /// Checks `event` against `session` and `limits` (how deep the state may nest and how large
    /// it may grow, `--max-state`), and builds its log event.
    package static func check(_ event: WireEvent, session: Session, limits: JSONPatchLimits) throws(EventRefusal) -> Verdict {
        if session.broken { throw .sessionBroken }
        let expected = session.builder.nextSeq
        if event.seq < expected { return .alreadyStored }
        guard event.seq == expected else { throw .seqGap(seq: event.seq, expected: expected) }
        let seq = event.seq
        let at = Date(timeIntervalSince1970: event.at)
        // Built on a copy: a refused event leaves the session as it was.
        var after = session
        var logEvent: LogEvent
        if let keyframe = event.keyframe {
            after.stateBytes = try checkWhole(keyframe, seq: seq, limits: limits)
            logEvent = after.builder.next(action: event.action, state: keyframe, at: at, durationNs: event.durationNs,
                                          cause: event.cause, coalesced: event.coalesced)
        } else {
            let patch: JSONPatch
            do {
                patch = try JSONPatch(json: event.patch ?? [])
            } catch {
                throw .patchFailed(seq: seq, reason: "\(error)")
            }
            if event.coalesced && patch.isEmpty && expected > 0 {
                logEvent = after.builder.skipped(action: event.action, at: at, durationNs: event.durationNs, cause: event.cause)
            } else if expected == 0 {
                var state = session.builder.state
                do {
                    try state.apply(patch, limits: limits)
                } catch {
                    throw refusal(error, seq: seq, limits: limits)
                }
                after.stateBytes = try checkWhole(state, seq: seq, limits: limits)
                logEvent = after.builder.next(action: event.action, state: state, at: at, durationNs: event.durationNs,
                                              cause: event.cause, coalesced: event.coalesced)
            } else {
                logEvent = try applyInPlace(patch, of: event, to: &after, limits: limits)
            }
        }
        guard logEvent.hash == event.hash else {
            throw .hashMismatch(seq: seq, computed: logEvent.hash, claimed: event.hash)
        }
        logEvent.nonFinite = event.nonFinite
        logEvent.site = event.site.map { SendSite(file: $0.file, line: $0.line, function: $0.function) }
        return .accepted(logEvent, after)
    }

    /// The usual event: the app's patch is the forward patch, and the undo of applying it in
    /// place is the inverse, so nothing is diffed and the new state is hashed once. The limits
    /// are checked operation by operation: a patch that would nest too deep or grow too large
    /// fails before it has built anything big.
    private static func applyInPlace(_ patch: JSONPatch, of event: WireEvent, to session: inout Session,
                                     limits: JSONPatchLimits) throws(EventRefusal) -> LogEvent {
        let before = session.builder
        var state = before.state
        var inverse: JSONPatch
        do {
            inverse = try state.applyReturningInverse(patch, limits: limits)
        } catch {
            throw refusal(error, seq: event.seq, limits: limits)
        }
        let (hash, size) = state.hashAndCanonicalSize(before.hashVersion)
        guard hash == event.hash else {
            throw .hashMismatch(seq: event.seq, computed: hash, claimed: event.hash)
        }
        try checkSize(size, seq: event.seq, limits: limits)
        // The inverse keeps every value the patch overwrote, so a small patch that overwrites one
        // large value many times has a huge inverse. It never needs to be larger than the state
        // before: past that, one `replace` of the whole document takes the state back just as well.
        let beforeBytes = session.stateBytes ?? before.state.hashAndCanonicalSize(before.hashVersion).size
        if !inverse.isEmpty, inverse.json.measure(byteBudget: beforeBytes + 64).bytes > beforeBytes + 64 {
            inverse = JSONPatch([.replace(path: JSONPointer(tokens: []), value: before.state)])
        }
        session.stateBytes = size
        return session.builder.next(action: event.action, state: state, forward: patch.isEmpty ? [] : (event.patch ?? []),
                                    inverse: inverse.isEmpty ? [] : inverse.json, hash: hash, at: Date(timeIntervalSince1970: event.at),
                                    durationNs: event.durationNs, cause: event.cause, coalesced: event.coalesced)
    }

    /// The refusal of a patch that failed while applying: too deep, too large or not applicable.
    private static func refusal(_ error: JSONPatchError, seq: Int64, limits: JSONPatchLimits) -> EventRefusal {
        switch error.reason {
        case .tooDeep: .patchTooDeep(seq: seq, operation: error.operationLabel, maxDepth: limits.maxDepth)
        case .tooLarge: .patchTooLarge(seq: seq, operation: error.operationLabel, maxAddedBytes: limits.maxAddedBytes ?? 0)
        default: .patchFailed(seq: seq, reason: "\(error)")
        }
    }

    /// Checks a whole state an app sent (a keyframe, or seq 0) against the limits; returns its
    /// estimated compact size.
    private static func checkWhole(_ state: JSONValue, seq: Int64, limits: JSONPatchLimits) throws(EventRefusal) -> Int {
        let (bytes, depth) = state.measure(byteBudget: limits.maxAddedBytes ?? .max, depthBudget: limits.maxDepth)
        if depth > limits.maxDepth { throw .stateTooDeep(seq: seq, maxDepth: limits.maxDepth) }
        try checkSize(bytes, seq: seq, limits: limits)
        return bytes
    }

    private static func checkSize(_ bytes: Int, seq: Int64, limits: JSONPatchLimits) throws(EventRefusal) {
        let maxBytes = limits.maxAddedBytes ?? .max
        guard bytes <= maxBytes else { throw .stateTooLarge(seq: seq, maxBytes: maxBytes) }
    }
}

/// Why a session refused an event; ``wireError`` is what the app is told.
package enum EventRefusal: Error, Equatable {
    /// The log refused an earlier event of the session.
    case sessionBroken
    /// The event skips seqs the session has not had.
    case seqGap(seq: Int64, expected: Int64)
    /// The patch is not a patch, or does not apply to the session's state.
    case patchFailed(seq: Int64, reason: String)
    /// An operation of the patch would nest the state deeper than the log reads back.
    case patchTooDeep(seq: Int64, operation: String, maxDepth: Int)
    /// An operation of the patch would add more than `--max-state` to the state.
    case patchTooLarge(seq: Int64, operation: String, maxAddedBytes: Int)
    /// A whole state sent (a keyframe, or seq 0) nests deeper than the log reads back.
    case stateTooDeep(seq: Int64, maxDepth: Int)
    /// The state after the event is larger than `--max-state`.
    case stateTooLarge(seq: Int64, maxBytes: Int)
    /// The state after the event does not hash to what the event says.
    case hashMismatch(seq: Int64, computed: UInt64, claimed: UInt64)

    package var wireError: WireError {
        switch self {
        case .sessionBroken:
            WireError(.storage, "the log refused an earlier event of this session; say hello again to resume")
        case .seqGap(let seq, let expected):
            WireError(.seqGap, "event \(seq) arrived but the server expects \(expected) next; resend from \(expected)")
        case .patchFailed(let seq, let reason):
            WireError(.patchFailed, "event \(seq): the patch does not apply to the session's state: \(reason)")
        case .patchTooDeep(let seq, let operation, let maxDepth):
            WireError(.stateTooDeep, "event \(seq): \(operation) would nest the state deeper than \(maxDepth) levels, which the log could not read back; nothing was stored")
        case .patchTooLarge(let seq, let operation, let maxAddedBytes):
            WireError(.stateTooLarge, "event \(seq): \(operation) would add more than the server's --max-state of \(maxAddedBytes) bytes to the state; nothing was stored")
        case .stateTooDeep(let seq, let maxDepth):
            WireError(.stateTooDeep, "event \(seq): the state nests deeper than \(maxDepth) levels, which the log could not read back; nothing was stored")
        case .stateTooLarge(let seq, let maxBytes):
            WireError(.stateTooLarge, "event \(seq): the state after it is more than \(maxBytes) bytes, over the server's --max-state; nothing was stored")
        case .hashMismatch(let seq, let computed, let claimed):
            WireError(.hashMismatch, "event \(seq): the state after it hashes to \(wireHash(computed)), the event says \(wireHash(claimed))")
        }
    }
}
