import Foundation
import RewindJSON

/// One event that touched a path, from ``Timeline/blame(path:)``: which action, when, and the
/// value at the path before and after it.
public struct BlameEntry: Sendable, Equatable {
    /// The event's seq.
    public var seq: Int64
    /// When the action was sent.
    public var at: Date
    /// The action's type (`events.action_type`).
    public var actionType: String
    /// The action.
    public var action: JSONValue
    /// The value at the path in the state before the event; `nil` when the path named nothing.
    public var before: JSONValue?
    /// The value at the path in the state after the event; `nil` when the path names nothing.
    public var after: JSONValue?
    /// The operations of the event's patch whose `path` or `from` is the path, an ancestor or a
    /// descendant of it (empty for seq 0, which sets the initial state).
    public var operations: [JSONPatchOperation]

    /// Makes an entry.
    public init(seq: Int64, at: Date, actionType: String, action: JSONValue, before: JSONValue?, after: JSONValue?,
                operations: [JSONPatchOperation]) {
        self.seq = seq
        self.at = at
        self.actionType = actionType
        self.action = action
        self.before = before
        self.after = after
        self.operations = operations
    }
}
