import Foundation

/// State guarded by a condition lock, so one thread can wait until another changes it.
final class Locked<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the lock held and wakes every waiter afterwards.
    @discardableResult
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `predicate` holds or `deadline` passes; returns whether it holds.
    func wait(until deadline: ContinuousClock.Instant? = nil, for predicate: (State) -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state) {
            guard let deadline else {
                condition.wait()
                continue
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return false }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return true
    }
}
