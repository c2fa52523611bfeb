import Dispatch

/// A point on ``MonotonicClock`` by which something must happen: the one time type the
/// recorder's network waits use (a wall clock moves when the user or NTP sets it; this does not).
package struct Deadline: Sendable, Comparable {
    /// ``MonotonicClock`` nanoseconds.
    package let nanoseconds: Int64

    /// The deadline at `nanoseconds` on the monotonic clock.
    package init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// `duration` from now (a negative one has passed already).
    package static func after(_ duration: Duration) -> Deadline {
        Deadline(nanoseconds: MonotonicClock.deadline(after: duration))
    }

    /// How long is left, never below zero.
    package var remaining: Duration {
        .nanoseconds(max(0, nanoseconds &- MonotonicClock.nanoseconds()))
    }

    /// The same instant for Dispatch's waits (a semaphore's, a group's).
    package var dispatchTime: DispatchTime {
        let left = max(0, nanoseconds &- MonotonicClock.nanoseconds())
        return .now() + .nanoseconds(Int(clamping: left))
    }

    /// Whether it has passed.
    package var hasPassed: Bool { MonotonicClock.nanoseconds() >= nanoseconds }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
