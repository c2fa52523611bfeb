import Foundation

/// A monotonic clock in nanoseconds, read through the vDSO (no system call).
enum MonotonicNanos {
    @inline(__always)
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}
