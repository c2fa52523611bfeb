import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

/// The full-text index is filled off the commit path (schema 4): these check the bound on how
/// long search can miss a committed event, and that no path leaves the index wrong.
@Suite("Full-text index: filled after the commit, never wrong", .ownThreads)
struct TextIndexTests {
    /// The events whose action text holds `word`, as a new reader sees them.
    private func found(_ word: String, session: Int64, in path: String) throws -> [Int64] {
        try LogReader(path: path).events(session: session, text: word).map(\.seq)
    }

    /// Opens session `uuid` and appends seqs `seqs`, the one at `needleAt` holding `word` in its action.
    private func appendSession(_ writer: LogWriter, uuid: String = "s", seqs: Range<Int64>, word: String, at needleAt: Int64) throws -> Int64 {
        let id = try writer.openSession(uuid: uuid, app: "A", startedAt: Fixture.start)
        appendEvents(writer, session: id, seqs: seqs, word: word, at: needleAt)
        return id
    }

    private func appendEvents(_ writer: LogWriter, session id: Int64, seqs: Range<Int64>, word: String, at needleAt: Int64) {
        var events = Fixture.events(session: id, seqs: seqs)
        events[Int(needleAt - seqs.lowerBound)] = Fixture.event(session: id, seq: needleAt, text: word)
        writer.append(events)
    }

    private func integrityCheck(_ path: String) throws {
        let raw = try Connection(path: path)
        try raw.execute("INSERT INTO events_fts(events_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test("a committed event is searchable within the index interval, without a flush")
    func followsTheCommit() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"), options: .init(indexInterval: 0.2))
        defer { writer.close() }
        let id = try appendSession(writer, seqs: 0..<50, word: "needle", at: 40)
        let committedAt = Date()
        try writer.commit()
        // Committed and readable at once…
        #expect(try LogReader(path: writer.path).eventCount() == 50)
        // …and found by text once the indexer's interval has passed, with no call to the writer.
        // Not timed: the writer indexes on the interval's schedule, but under the suite's load its
        // thread can wait for a core longer than the interval, so a wall-clock bound here would
        // measure the load.
        var seqs: [Int64] = []
        while seqs.isEmpty && Date().timeIntervalSince(committedAt) < 30 {
            seqs = try found("needle", session: id, in: writer.path)
            if seqs.isEmpty { usleep(5_000) }
        }
        #expect(seqs == [40])
        let progress = try writer.indexProgress()
        #expect(progress.indexed == progress.committed)
        try integrityCheck(writer.path)
    }

    @Test("commit() returns before the index has the events; flush() returns after")
    func commitThenFlush() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"), options: .init(indexInterval: 3_600))
        defer { writer.close() }
        let id = try appendSession(writer, seqs: 0..<20, word: "needle", at: 7)
        try writer.commit()
        let progress = try writer.indexProgress()
        #expect(progress.committed > progress.indexed)
        #expect(try found("needle", session: id, in: writer.path).isEmpty)
        try writer.flush()
        #expect(try found("needle", session: id, in: writer.path) == [7])
        let after = try writer.indexProgress()
        #expect(after.indexed == after.committed && after.committed == progress.committed)
        try integrityCheck(writer.path)
    }

    @Test("events a writer committed but never indexed (it died) are indexed when the next writer opens the file")
    func catchUpAfterACrash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("log.db")
        let copy = directory.path("crashed.db")
        let id: Int64
        do {
            let writer = try LogWriter(path: path, options: .init(indexInterval: 3_600))
            defer { writer.close() }
            id = try writer.openSession(uuid: "s", app: "A", startedAt: Fixture.start)
            writer.append([Fixture.event(session: id, seq: 0, text: "early")])
            try writer.flush()
            appendEvents(writer, session: id, seqs: 1..<30, word: "late", at: 11)
            try writer.commit()
            // The file as a crash would leave it now: the database and its WAL, copied while the
            // writer is idle (a process that dies runs no close, so nothing more is written).
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        // Until a writer opens it, search misses what was not indexed, and says nothing wrong.
        #expect(try found("early", session: id, in: copy) == [0])
        #expect(try found("late", session: id, in: copy).isEmpty)
        #expect(try LogReader(path: copy).eventCount() == 30)
        let next = try LogWriter(path: copy, options: .init(indexInterval: 3_600))
        defer { next.close() }
        // Opening does the catch-up before anything else; no flush is needed.
        let deadline = Date().addingTimeInterval(5)
        var progress = try next.indexProgress()
        while progress.indexed != progress.committed && Date() < deadline { progress = try next.indexProgress() }
        #expect(progress.indexed == progress.committed)
        #expect(try found("late", session: id, in: copy) == [11])
        try integrityCheck(copy)
    }

    @Test("prune indexes first, so FTS5 deletes only what it holds; rowids reused after a prune are indexed")
    func pruneAndRowidReuse() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"), options: .init(indexInterval: 3_600))
        defer { writer.close() }
        let keep = try appendSession(writer, uuid: "keep", seqs: 0..<10, word: "kept", at: 3)
        let drop = try appendSession(writer, uuid: "drop", seqs: 0..<10, word: "dropped", at: 5)
        // Committed, not indexed: the pruned session holds the highest rowids.
        try writer.commit()
        #expect(try writer.indexProgress().indexed < writer.indexProgress().committed)
        #expect(try writer.prune(sessions: [drop]) == [drop])
        try integrityCheck(writer.path)
        let progress = try writer.indexProgress()
        #expect(progress.indexed == progress.committed)
        // The next events take the rowids the pruned session had; they must be indexed all the same.
        appendEvents(writer, session: keep, seqs: 10..<20, word: "reused", at: 14)
        try writer.flush()
        #expect(try found("kept", session: keep, in: writer.path) == [3])
        #expect(try found("reused", session: keep, in: writer.path) == [14])
        try integrityCheck(writer.path)
    }

    @Test("close() indexes what is left, so a file closed cleanly is fully searchable")
    func closeIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("log.db")
        let writer = try LogWriter(path: path, options: .init(indexInterval: 3_600))
        let id = try appendSession(writer, seqs: 0..<10, word: "last", at: 9)
        writer.close()
        #expect(try found("last", session: id, in: path) == [9])
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("SELECT id FROM rewind_fts_progress") == raw.scalarInt("SELECT max(id) FROM events"))
        try integrityCheck(path)
    }
}
