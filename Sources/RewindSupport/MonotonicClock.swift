import Foundation

/// The package's one monotonic clock: time that wall-clock changes cannot move, read through
/// the vDSO (no system call). Deadlines are nanoseconds on this clock.
@usableFromInline
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (the machine's boot, on Linux).
    @inlinable @inline(__always)
    package static func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    /// The same instant in seconds.
    @inlinable
    package static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }

    /// The deadline `seconds` from now, in nanoseconds.
    @inlinable
    package static func deadline(after seconds: Double) -> Int64 {
        nanoseconds() &+ Int64(seconds * 1e9)
    }
}
