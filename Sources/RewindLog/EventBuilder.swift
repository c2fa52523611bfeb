import Foundation
import RewindJSON

/// Turns each (action, new state) of one session into the next ``LogEvent``: the forward and
/// inverse patches against the previous state, the state's hash, and a keyframe when one is due.
///
/// The app's recorder, the server's ingest and the importers all build events through it, so
/// every writer of the log obeys the same keyframe rule.
///
/// ```swift
/// var builder = EventBuilder(sessionID: id)
/// writer.append([builder.initial(state: initialState, at: Date())])
/// writer.append([builder.next(action: ["type": "increment"], state: newState, at: Date())])
/// ```
public struct EventBuilder: Sendable {
    /// The session the events belong to.
    public let sessionID: Int64
    /// The seq the next event gets.
    public private(set) var nextSeq: Int64
    /// The state after the last event built (`null` before the initial state).
    public private(set) var state: JSONValue
    /// The hash of ``state``, by ``hashVersion``.
    public private(set) var stateHash: UInt64
    /// Which state hash the session's events carry.
    public let hashVersion: StateHashVersion
    private var counter: KeyframeCounter
    /// The compact size of the state at the last keyframe. The policy weighs patches against the
    /// state's size; measuring it only at keyframes keeps the per-event cost to the diff.
    private var keyframeStateBytes: Int

    /// The action recorded with seq 0, the initial state.
    public static let initialAction: JSONValue = ["type": "@@INIT"]

    /// A builder for a new session; its first event must be ``initial(state:at:action:)``.
    public init(sessionID: Int64, policy: KeyframePolicy = KeyframePolicy(), hashVersion: StateHashVersion = .v1) {
        self.sessionID = sessionID
        self.hashVersion = hashVersion
        self.nextSeq = 0
        self.state = .null
        self.stateHash = JSONValue.null.hash(hashVersion)
        self.counter = KeyframeCounter(policy: policy)
        self.keyframeStateBytes = 0
    }

    /// A builder that continues a session whose last event is `nextSeq - 1`, with `state` after
    /// it. The next event carries a keyframe, so the continuation never depends on counters that
    /// were not saved.
    public init(resuming sessionID: Int64, nextSeq: Int64, state: JSONValue, policy: KeyframePolicy = KeyframePolicy(),
                hashVersion: StateHashVersion = .v1) {
        self.sessionID = sessionID
        self.hashVersion = hashVersion
        self.nextSeq = nextSeq
        self.state = state
        self.stateHash = state.hash(hashVersion)
        self.counter = KeyframeCounter(policy: policy)
        self.keyframeStateBytes = 0
    }

    /// The event for seq 0: the initial state, stored whole as the first keyframe.
    public mutating func initial(state: JSONValue, at date: Date, action: JSONValue = EventBuilder.initialAction) -> LogEvent {
        precondition(nextSeq == 0, "initial(state:) builds seq 0 only")
        return next(action: action, state: state, at: date)
    }

    /// The event for `action`, which produced `newState`.
    ///
    /// - Parameters:
    ///   - durationNs: how long the reducer ran.
    ///   - cause: the seq of the action whose effect sent this one.
    ///   - coalesced: the recorder skipped the states of one or more earlier actions; this
    ///     event's patch covers all of them.
    public mutating func next(action: JSONValue, state newState: JSONValue, at date: Date,
                              durationNs: Int64 = 0, cause: Int64? = nil, coalesced: Bool = false) -> LogEvent {
        let seq = nextSeq
        let forward: JSONValue
        let inverse: JSONValue
        let patchBytes: Int
        if seq == 0 {
            forward = []
            inverse = []
            patchBytes = 0
        } else {
            let diff = JSONDiff(from: state, to: newState)
            forward = diff.forward.json
            inverse = diff.inverse.json
            patchBytes = diff.forward.isEmpty ? 0 : forward.serializedBytes(.compact).count
        }
        let keyframeDue = counter.record(patchBytes: patchBytes, stateBytes: keyframeStateBytes)
        if keyframeDue {
            keyframeStateBytes = newState.serializedBytes(.compact).count
        }
        state = newState
        stateHash = newState.hash(hashVersion)
        nextSeq += 1
        return LogEvent(
            sessionID: sessionID, seq: seq, at: date, action: action,
            actionType: seq == 0 && action == Self.initialAction ? "@@INIT" : nil,
            patch: forward, inverse: inverse, hash: stateHash, durationNs: durationNs,
            cause: cause, coalesced: coalesced, keyframe: keyframeDue ? Optional(newState) : Optional.none
        )
    }

    /// The event for `action`, whose forward and inverse patches and resulting state's hash the
    /// caller already has (the server's ingest applies the app's patch in place and keeps its
    /// undo): no diff, no second hash. Same keyframe rule as ``next(action:state:at:durationNs:cause:coalesced:)``.
    /// `seq` must not be 0.
    package mutating func next(action: JSONValue, state newState: JSONValue, forward: JSONValue, inverse: JSONValue,
                               hash: UInt64, at date: Date, durationNs: Int64 = 0, cause: Int64? = nil,
                               coalesced: Bool = false) -> LogEvent {
        precondition(nextSeq > 0, "the initial state comes first")
        let seq = nextSeq
        let patchBytes: Int
        if case .array(let operations) = forward, operations.isEmpty {
            patchBytes = 0
        } else {
            patchBytes = forward.serializedBytes(.compact).count
        }
        let keyframeDue = counter.record(patchBytes: patchBytes, stateBytes: keyframeStateBytes)
        if keyframeDue {
            keyframeStateBytes = newState.serializedBytes(.compact).count
        }
        state = newState
        stateHash = hash
        nextSeq += 1
        return LogEvent(
            sessionID: sessionID, seq: seq, at: date, action: action, actionType: nil,
            patch: forward, inverse: inverse, hash: hash, durationNs: durationNs,
            cause: cause, coalesced: coalesced, keyframe: keyframeDue ? Optional(newState) : Optional.none
        )
    }

    /// The event for an action whose resulting state was not recorded (the recorder's queue was
    /// full). It changes nothing: its state is the last recorded one, so its hash is that
    /// state's, and the next recorded event's patch carries the skipped changes.
    public mutating func skipped(action: JSONValue, at date: Date, durationNs: Int64 = 0, cause: Int64? = nil) -> LogEvent {
        precondition(nextSeq > 0, "the initial state comes first")
        let seq = nextSeq
        nextSeq += 1
        return LogEvent(
            sessionID: sessionID, seq: seq, at: date, action: action, patch: [], inverse: [],
            hash: stateHash, durationNs: durationNs, cause: cause, coalesced: true, keyframe: Optional.none
        )
    }
}
