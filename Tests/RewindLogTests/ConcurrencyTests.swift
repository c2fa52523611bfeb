import Foundation
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Readers while the writer writes", .ownThreads)
struct ConcurrencyTests {
    @Test("Readers on their own connections see whole batches, in order, while appends go on")
    func readersWhileWriting() async throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory, options: LogWriter.Options(commitInterval: 0.002))
        defer { writer.close() }
        let path = writer.path
        let batch = 25
        let total = 4_000
        let events = Fixture.events(session: id, seqs: 0..<Int64(total))
        // On a thread of its own: a detached task waits for the shared pool, which other tests'
        // blocking waits can hold for longer than the readers look (they once saw nothing).
        async let produced: Void = onOwnThread {
            for start in stride(from: 0, to: total, by: batch) {
                writer.append(Array(events[start..<start + batch]))
            }
            try writer.flush()
        }
        let observations = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let reader = try LogReader(path: path)
                    var seen: [Int] = []
                    let deadline = Date(timeIntervalSinceNow: 30)
                    while Date() < deadline {
                        let count = try reader.eventCount(session: id)
                        seen.append(count)
                        // What a reader sees is gap-free from 0: the last seq is the count minus one.
                        let tail = try reader.events(session: id, from: Int64(max(0, count - 3)))
                        #expect(tail.last.map { Int($0.seq) + 1 } ?? 0 >= count)
                        if count == total { break }
                        await Task.yield()
                    }
                    return seen
                }
            }
            var all: [[Int]] = []
            for try await seen in group { all.append(seen) }
            return all
        }
        try await produced
        for seen in observations {
            #expect(seen.last == total)
            #expect(seen == seen.sorted(), "counts never go backwards")
            #expect(seen.allSatisfy { $0 % batch == 0 }, "a batch is never seen in part")
        }
    }
}
