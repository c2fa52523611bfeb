/// How long to wait before the next connection attempt: 0.1 s doubling up to 5 s, each delay
/// drawn between half and all of it so that many apps do not reconnect in step.
struct ReconnectBackoff: Sendable {
    var initial: Double = 0.1
    var maximum: Double = 5
    private(set) var failures = 0

    /// The delay before the next attempt, in seconds; counts one more failure.
    mutating func nextDelay() -> Double {
        let exponent = min(failures, 16)
        failures += 1
        let delay = min(maximum, initial * Double(1 << exponent))
        return delay * Double.random(in: 0.5...1.0)
    }

    /// The server acknowledged events (progress): the next failure starts from the initial delay.
    mutating func reset() {
        failures = 0
    }
}
