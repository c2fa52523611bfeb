/// How fast a replay sends the recorded actions.
public enum ReplayPace: Sendable, Equatable {
    /// One after another, without waiting.
    case immediate
    /// A fixed interval between actions.
    case interval(Duration)
    /// The recorded intervals, divided by `speed` (2 is twice as fast).
    case recorded(speed: Double)
}
