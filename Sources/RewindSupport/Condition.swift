import Foundation

/// A value guarded by a lock that threads can wait on until it changes: the package's one
/// condition variable, for the few places that block (a writer's queue, a reader pool, a
/// transport's inbox).
///
/// Changing the value does not wake anyone by itself: ``update(waking:_:)`` changes it and wakes
/// one waiter or all of them, so each call site says who it means to wake, and a plain read
/// through ``withLock(_:)`` costs no broadcast.
@usableFromInline
package final class Condition<Value>: @unchecked Sendable {
    /// Whom a change wakes.
    @usableFromInline
    package enum Waking: Sendable {
        /// One waiting thread (every waiter waits for the same thing).
        case one
        /// Every waiting thread.
        case all
    }

    @usableFromInline let condition = NSCondition()
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the lock held and wakes nobody.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the lock held, then wakes one waiter or all of them.
    @inlinable @discardableResult
    package func update<Result>(waking: Waking = .all, _ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            switch waking {
            case .one: condition.signal()
            case .all: condition.broadcast()
            }
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits until `predicate` holds, or until `deadline` (``MonotonicClock`` nanoseconds)
    /// passes; then runs `body` under the same hold of the lock. Returns nil when the deadline
    /// passed first. `body` may change the value; it wakes nobody.
    @inlinable
    package func withLock<Result>(
        when predicate: (Value) -> Bool,
        deadline: Int64? = nil,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result? {
        condition.lock()
        defer { condition.unlock() }
        guard waitLocked(for: predicate, deadline: deadline) else { return nil }
        return try body(&value)
    }

    /// Waits until `predicate` holds or `deadline` passes; returns whether it holds.
    @inlinable
    package func wait(for predicate: (Value) -> Bool, deadline: Int64? = nil) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return waitLocked(for: predicate, deadline: deadline)
    }

    /// Waits, once, until woken or until `deadline` passes, whatever the value; for loops that
    /// must look at the clock as well as the value (a writer's commit deadline).
    @inlinable
    package func withLock<Result>(
        waitingOnceUntil deadline: Int64?,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        if let deadline {
            let remaining = deadline - MonotonicClock.nanoseconds()
            if remaining > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: Double(remaining) / 1e9)) }
        } else {
            condition.wait()
        }
        return try body(&value)
    }

    @usableFromInline
    func waitLocked(for predicate: (Value) -> Bool, deadline: Int64?) -> Bool {
        while !predicate(value) {
            guard let deadline else {
                condition.wait()
                continue
            }
            let remaining = deadline - MonotonicClock.nanoseconds()
            if remaining <= 0 { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(remaining) / 1e9))
        }
        return true
    }
}
