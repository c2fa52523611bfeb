import Foundation
import RewindSupport

/// Timing helpers: a median-of-runs measurement, on the package's one monotonic clock.
enum Measure {
    /// Runs `body` repeatedly for at least `minSeconds` (and at least `minRuns` times) after one
    /// warm-up run, and returns the median seconds per run.
    static func median(minRuns: Int = 5, minSeconds: Double = 0.5, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        let start = MonotonicClock.seconds()
        while samples.count < minRuns || MonotonicClock.seconds() - start < minSeconds {
            let t0 = MonotonicClock.seconds()
            try body()
            samples.append(MonotonicClock.seconds() - t0)
            if samples.count >= 10_000 { break }
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// The value at quantile `q` (0...1) of `samples`.
    static func quantile(_ samples: [Double], _ q: Double) -> Double {
        precondition(!samples.isEmpty)
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * q).rounded(.up)) - 1))
        return sorted[index]
    }
}

/// Keeps the optimizer from discarding a computed value.
@inline(never) func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
