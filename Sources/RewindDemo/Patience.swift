/// How long a scripted user waits on a spinner before doing something about it (trying again,
/// leaving the screen), as a person would with a request that hangs.
struct Patience {
    /// Longer than the slowest request the pretend back end makes.
    static let limit = Duration.seconds(3)
    private var since: ContinuousClock.Instant?

    /// Call on each step spent waiting; `true` once the wait has outlasted ``limit`` (and the
    /// wait starts over).
    mutating func runsOut() -> Bool {
        let now = ContinuousClock.now
        guard let since else {
            self.since = now
            return false
        }
        guard now - since > Self.limit else { return false }
        self.since = nil
        return true
    }

    /// Call on each step not spent waiting.
    mutating func reset() {
        since = nil
    }
}
