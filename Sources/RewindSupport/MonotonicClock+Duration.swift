extension MonotonicClock {
    /// The deadline `duration` from now, in nanoseconds; a duration too long to count in
    /// nanoseconds gives the furthest deadline there is (or, negative, the earliest).
    @inlinable
    package static func deadline(after duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (wholeSeconds, overflowed) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (deadline, passed) = nanoseconds().addingReportingOverflow(wholeSeconds &+ attoseconds / 1_000_000_000)
        guard !overflowed, !passed else { return seconds < 0 ? .min : .max }
        return deadline
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (the package's one conversion).
    package var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
