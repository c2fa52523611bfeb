import Foundation
import RewindSupport

extension Condition {
    /// The value now.
    package var value: Value { withLock { $0 } }

    /// Waits until `predicate` holds or `timeout` seconds pass; returns whether it holds.
    @discardableResult
    package func wait(timeout: Double = 30, _ predicate: (Value) -> Bool) -> Bool {
        wait(for: predicate, deadline: MonotonicClock.deadline(after: .milliseconds(Int64(timeout * 1_000))))
    }
}
