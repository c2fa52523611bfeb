import Foundation
import RewindLog
import RewindSupport

/// A few reader connections shared by the query workers: one is checked out per query.
///
/// Readers are handed out first come, first served (a ticket per request). Inspectors take
/// turns for the workers one request at a time (``InspectorQueries``), so at most one request
/// of each inspector waits here: the pool serves the waiting inspectors in turn too, and one
/// inspector's pipelined requests cannot keep another's waiting for more than about one query.
///
/// Scans (queries that walk a whole session: find, blame, compare, a branch's actions) may hold
/// at most ``maxScans`` readers at once, fewer than there are, so a quick query (`sessions`, a
/// page of events, a state) always finds a reader within about one quick query, however many
/// scans wait or run.
final class ReaderPool: @unchecked Sendable {
    private struct State {
        var idle: [LogReader]
        var nextTicket: UInt64 = 0
        var serving: UInt64 = 0
        var scansRunning = 0
        var nextScanTicket: UInt64 = 0
        var servingScan: UInt64 = 0

        mutating func takeTicket() -> UInt64 {
            defer { nextTicket &+= 1 }
            return nextTicket
        }
    }

    /// Every change wakes every waiter: each waits for a ticket of its own to come up.
    private let state: Condition<State>
    /// Scans may hold at most this many readers; a scan waits its turn for a slot first.
    let maxScans: Int

    init(store: any LogStore, count: Int, maxScans: Int? = nil) throws(LogError) {
        var readers: [LogReader] = []
        for _ in 0..<count { readers.append(try store.openReader()) }
        state = Condition(State(idle: readers))
        self.maxScans = max(1, min(maxScans ?? count, count))
    }

    /// Runs `body` with a reader; a `scan` first waits for one of the ``maxScans`` slots.
    func withReader<T>(scan: Bool = false, _ body: (LogReader) throws -> T) rethrows -> T {
        let ticket: UInt64
        if scan {
            let maxScans = self.maxScans
            let scanTicket = state.withLock { state -> UInt64 in
                defer { state.nextScanTicket &+= 1 }
                return state.nextScanTicket
            }
            // A scan takes its reader ticket once it has its slot, not when it asked: quick
            // queries that come meanwhile go first.
            ticket = state.update(when: { $0.servingScan == scanTicket && $0.scansRunning < maxScans }) { state in
                state.servingScan &+= 1
                state.scansRunning += 1
                return state.takeTicket()
            }!
        } else {
            ticket = state.withLock { $0.takeTicket() }
        }
        // The next ticket may go too if another reader is idle: taking wakes the waiters.
        let reader = state.update(when: { $0.serving == ticket && !$0.idle.isEmpty }) { state in
            state.serving &+= 1
            return state.idle.removeLast()
        }!
        defer {
            state.update { state in
                state.idle.append(reader)
                if scan { state.scansRunning -= 1 }
            }
        }
        return try body(reader)
    }
}
