/// How long a scripted user waits on a spinner before trying again.
///
/// An answer that arrives while an inspector holds the store (a jump) is not applied, so after
/// `resume` a screen can show "loading" with nothing in flight; a person would pull to refresh.
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
