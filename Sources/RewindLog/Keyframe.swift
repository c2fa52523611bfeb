import RewindJSON

/// A full state stored at one seq of a session.
public struct Keyframe: Sendable, Equatable {
    /// The seq of the event after which the state was taken.
    public var seq: Int64
    /// The state.
    public var state: JSONValue

    /// Makes a keyframe.
    public init(seq: Int64, state: JSONValue) {
        self.seq = seq
        self.state = state
    }
}
