/// How a ``Recorder`` records.
public struct RecorderOptions: Sendable, Equatable {
    /// JSON Pointers replaced by `"<redacted>"` in every state and action before anything is
    /// written or sent (`/auth/token`, `/password`). A pointer that does not resolve in a value
    /// leaves it alone.
    public var redacting: [String]
    /// The most state snapshots waiting for the recorder's thread. When it is full, every action
    /// is still kept but the states in between are not recorded (their events are `coalesced`).
    public var queueCapacity: Int

    /// Options; 10,000 snapshots by default.
    public init(redacting: [String] = [], queueCapacity: Int = 10_000) {
        self.redacting = redacting
        self.queueCapacity = max(1, queueCapacity)
    }
}
