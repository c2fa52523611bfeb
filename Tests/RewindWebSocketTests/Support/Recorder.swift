import Foundation

/// Test state that threads update and tests wait on, with a deadline and no sleeping.
final class Recorder<State: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func update<Result>(_ body: (inout State) -> Result) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(&state)
    }

    var value: State {
        condition.lock()
        defer { condition.unlock() }
        return state
    }

    /// Waits until `predicate` holds, for at most `timeout`; returns whether it holds.
    func wait(timeout: Duration = .seconds(30), _ predicate: (State) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state) {
            if !condition.wait(until: deadline) { return predicate(state) }
        }
        return true
    }
}
