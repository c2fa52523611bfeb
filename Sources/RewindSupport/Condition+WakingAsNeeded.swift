import Foundation

extension Condition {
    /// Runs `body` with the lock held; `body` sets `waking` when its change is one a waiter waits
    /// for, and leaves it `nil` when not, so a change nobody waits for costs no wake-up (a push
    /// that finds the consumer awake, a reply that finds no one waiting for room).
    @inlinable @discardableResult
    package func update<Result>(_ body: (inout Value, _ waking: inout Waking?) throws -> Result) rethrows -> Result {
        condition.lock()
        var waking: Waking?
        defer {
            switch waking {
            case .one: condition.signal()
            case .all: condition.broadcast()
            case nil: break
            }
            condition.unlock()
        }
        return try body(&value, &waking)
    }
}
