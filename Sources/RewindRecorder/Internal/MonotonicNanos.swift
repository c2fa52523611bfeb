import Foundation

/// A monotonic clock in nanoseconds, read through the vDSO (no system call). Shared with
/// Rewind's `Store`, which times each reducer with it.
package enum MonotonicNanos {
    @inlinable @inline(__always)
    package static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}
