import Foundation

extension Condition {
    /// Waits until `predicate` holds, or until `deadline` (``MonotonicClock`` nanoseconds)
    /// passes; then runs `body` under the same hold of the lock and wakes one waiter or all of
    /// them. Returns nil (and wakes nobody) when the deadline passed first.
    ///
    /// For waiters that take turns: each one's change (a ticket served, a slot taken) may be what
    /// the next one waits for, so taking must wake as giving back does.
    @inlinable
    package func update<Result>(
        when predicate: (Value) -> Bool,
        deadline: Int64? = nil,
        waking: Waking = .all,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result? {
        condition.lock()
        defer { condition.unlock() }
        guard waitLocked(for: predicate, deadline: deadline) else { return nil }
        defer {
            switch waking {
            case .one: condition.signal()
            case .all: condition.broadcast()
            }
        }
        return try body(&value)
    }
}
