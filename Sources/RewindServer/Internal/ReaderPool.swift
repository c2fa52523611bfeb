import Foundation
import RewindLog

/// A few reader connections shared by the query workers: one is checked out per query.
///
/// Readers are handed out first come, first served (a ticket per request). Each inspector's
/// requests run one at a time on its own queue, so at most one of its requests waits here: the
/// pool serves the waiting inspectors round-robin, and one inspector's pipelined requests cannot
/// keep another's waiting for more than about one query.
///
/// Scans (queries that walk a whole session: find, blame, compare, a branch's actions) may hold
/// at most ``maxScans`` readers at once, fewer than there are, so a quick query (`sessions`, a
/// page of events, a state) always finds a reader within about one quick query, however many
/// scans wait or run.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [LogReader]
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0
    /// Scans may hold at most this many readers; a scan waits its turn for a slot first.
    let maxScans: Int
    private var scansRunning = 0
    private var nextScanTicket: UInt64 = 0
    private var servingScan: UInt64 = 0

    init(path: String, count: Int, maxScans: Int? = nil) throws(LogError) {
        var readers: [LogReader] = []
        for _ in 0..<count { readers.append(try LogReader(path: path)) }
        idle = readers
        self.maxScans = max(1, min(maxScans ?? count, count))
    }

    /// Runs `body` with a reader; a `scan` first waits for one of the ``maxScans`` slots.
    func withReader<T>(scan: Bool = false, _ body: (LogReader) throws -> T) rethrows -> T {
        condition.lock()
        if scan {
            let ticket = nextScanTicket
            nextScanTicket &+= 1
            while ticket != servingScan || scansRunning >= maxScans { condition.wait() }
            servingScan &+= 1
            scansRunning += 1
            condition.broadcast()
        }
        let ticket = nextTicket
        nextTicket &+= 1
        while ticket != serving || idle.isEmpty { condition.wait() }
        serving &+= 1
        let reader = idle.removeLast()
        // The next ticket may go too if another reader is idle.
        condition.broadcast()
        condition.unlock()
        defer {
            condition.lock()
            idle.append(reader)
            if scan { scansRunning -= 1 }
            condition.broadcast()
            condition.unlock()
        }
        return try body(reader)
    }
}
