import Foundation
import RewindLog

/// A few reader connections shared by the query workers: one is checked out per query.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [LogReader]

    init(path: String, count: Int) throws(LogError) {
        var readers: [LogReader] = []
        for _ in 0..<count { readers.append(try LogReader(path: path)) }
        idle = readers
    }

    func withReader<T>(_ body: (LogReader) throws -> T) rethrows -> T {
        condition.lock()
        while idle.isEmpty { condition.wait() }
        let reader = idle.removeLast()
        condition.unlock()
        defer {
            condition.lock()
            idle.append(reader)
            condition.signal()
            condition.unlock()
        }
        return try body(reader)
    }
}
