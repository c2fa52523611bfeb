import Foundation

/// Checks `condition` every millisecond until it holds or `timeout` passes, for state that no one
/// signals (a server's counters); returns whether it holds.
public func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(1_000)
    }
    return true
}
