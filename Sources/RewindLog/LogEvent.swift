import Foundation
import RewindJSON

/// One recorded action and the change it made to the state: a row of `events`, plus the full
/// state when a keyframe is stored with it.
///
/// ```swift
/// let event = LogEvent(sessionID: id, seq: 1, at: Date(), action: ["type": "increment"],
///                      patch: [["op": "replace", "path": "/count", "value": 1]],
///                      inverse: [["op": "replace", "path": "/count", "value": 0]],
///                      hash: newState.stableHash)
/// ```
public struct LogEvent: Sendable, Equatable {
    /// The session's id (``SessionInfo/id``).
    public var sessionID: Int64
    /// The position in the session: 0, 1, 2… without gaps.
    public var seq: Int64
    /// When the action was sent.
    public var at: Date
    /// The action as JSON.
    public var action: JSONValue
    /// The action's type, for filtering: see ``actionType(of:)``.
    public var actionType: String
    /// The RFC 6902 patch from the previous state to this one (a JSON array).
    public var patch: JSONValue
    /// The RFC 6902 patch from this state back to the previous one (a JSON array).
    public var inverse: JSONValue
    /// ``JSONValue/stableHash`` of the state after the action.
    public var hash: UInt64
    /// How long the reducer ran, in nanoseconds.
    public var durationNs: Int64
    /// The seq of the action whose effect sent this one, when known.
    public var cause: Int64?
    /// `true` when the recorder coalesced the states before this one (their patches are folded in).
    public var coalesced: Bool
    /// The full state after the action, when a keyframe is stored with this event.
    public var keyframe: JSONValue?
    /// JSON Pointers of the numbers JSON cannot hold (NaN, ±infinity), recorded as the strings
    /// `"NaN"`, `"Infinity"`, `"-Infinity"`: `/state/…` in the state, `/action/…` in the action.
    /// Stored in the log's `non_finite` table (schema 2).
    public var nonFinite: [String] = []
    /// Where the app sent the action, when the recorder was told (schema 3's `send_sites`).
    public var site: SendSite?

    /// Makes an event; `actionType` defaults to ``actionType(of:)`` of `action`.
    public init(sessionID: Int64, seq: Int64, at: Date, action: JSONValue, actionType: String? = nil,
                patch: JSONValue = [], inverse: JSONValue = [], hash: UInt64, durationNs: Int64 = 0,
                cause: Int64? = nil, coalesced: Bool = false, keyframe: JSONValue? = nil) {
        self.sessionID = sessionID
        self.seq = seq
        self.at = at
        self.action = action
        self.actionType = actionType ?? Self.actionType(of: action)
        self.patch = patch
        self.inverse = inverse
        self.hash = hash
        self.durationNs = durationNs
        self.cause = cause
        self.coalesced = coalesced
        self.keyframe = keyframe
    }
}
