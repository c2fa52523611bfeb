import Foundation
import RewindSupport

/// Test state that threads update and tests wait on, with a deadline and no sleeping.
final class Recorder<State: Sendable>: Sendable {
    private let state: Condition<State>

    init(_ state: State) {
        self.state = Condition(state)
    }

    func update<Result>(_ body: (inout State) -> Result) -> Result {
        state.update(waking: .all, body)
    }

    var value: State {
        state.withLock { $0 }
    }

    /// Waits until `predicate` holds, for at most `timeout`; returns whether it holds.
    func wait(timeout: Duration = .seconds(30), _ predicate: (State) -> Bool) -> Bool {
        state.wait(for: predicate, deadline: MonotonicClock.deadline(after: timeout))
    }
}
