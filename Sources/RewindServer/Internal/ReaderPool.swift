import Foundation
import RewindLog

/// A few reader connections shared by the query workers: one is checked out per query.
///
/// Readers are handed out first come, first served (a ticket per request). Each inspector's
/// requests run one at a time on its own queue, so at most one of its requests waits here: the
/// pool serves the waiting inspectors round-robin, and one inspector's pipelined requests cannot
/// keep another's waiting for more than about one query.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [LogReader]
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0

    init(path: String, count: Int) throws(LogError) {
        var readers: [LogReader] = []
        for _ in 0..<count { readers.append(try LogReader(path: path)) }
        idle = readers
    }

    func withReader<T>(_ body: (LogReader) throws -> T) rethrows -> T {
        condition.lock()
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
            condition.broadcast()
            condition.unlock()
        }
        return try body(reader)
    }
}
