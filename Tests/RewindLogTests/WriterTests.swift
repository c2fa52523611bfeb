import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("LogWriter: validation, batches, durability, group commit", .ownThreads)
struct WriterTests {
    @Test("Gap and duplicate seqs are rejected without damaging what is stored")
    func gapAndDuplicate() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let completions = Completions()
        writer.append(Fixture.events(session: id, seqs: 0..<10), completion: completions.handler)
        writer.append(Fixture.events(session: id, seqs: 12..<14), completion: completions.handler)  // gap
        writer.append(Fixture.events(session: id, seqs: 9..<11), completion: completions.handler)   // 9 is a duplicate
        writer.append(Fixture.events(session: id, seqs: 10..<12), completion: completions.handler)  // fine
        let results = try #require(completions.wait(for: 4))
        // Failures are reported at once; successes after the commit, so order by kind, not arrival.
        let errors = results.compactMap(\.error)
        #expect(errors.count == 2)
        #expect(errors.contains { $0.kind == .seqOutOfOrder(session: id, expected: 10, found: 12) })
        #expect(errors.contains { $0.kind == .seqOutOfOrder(session: id, expected: 10, found: 9) })
        #expect(errors.map(\.description).contains("Session \(id) expects seq 10 next, but seq 12 leaves a gap; the batch was not written."))
        #expect(errors.map(\.description).contains("Session \(id) expects seq 10 next, but seq 9 is already stored (a duplicate); the batch was not written."))
        try writer.flush()
        let reader = try LogReader(path: writer.path)
        let stored = try reader.events(session: id)
        #expect(stored.map(\.seq) == Array(0..<12))
        #expect(stored == Fixture.events(session: id, seqs: 0..<12).map { var e = $0; e.keyframe = nil; return e })
        #expect(try writer.nextSeq(session: id) == 12)
    }

    @Test("A batch is all-or-nothing: one bad event keeps the whole batch out, other batches go in")
    func allOrNothing() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let other = try writer.openSession(uuid: "other", app: "Counter", startedAt: Fixture.start)
        let completions = Completions()
        writer.append(Fixture.events(session: id, seqs: 0..<5), completion: completions.handler)
        // Good events for `other` and one for `id` with a gap: none of it may be stored.
        var mixed = Fixture.events(session: other, seqs: 0..<3)
        mixed.append(Fixture.event(session: id, seq: 6))
        writer.append(mixed, completion: completions.handler)
        // A patch that is not an array is refused before it reaches the queue.
        var bad = Fixture.events(session: other, seqs: 0..<2)
        bad[1].patch = ["op": "add"]
        writer.append(bad, completion: completions.handler)
        writer.append(Fixture.events(session: other, seqs: 0..<2), completion: completions.handler)
        // Unknown session.
        writer.append([Fixture.event(session: 99, seq: 0)], completion: completions.handler)
        let results = try #require(completions.wait(for: 5))
        let errors = results.compactMap(\.error)
        #expect(errors.count == 3)
        #expect(errors.contains { $0.kind == .invalidEvent(session: other, seq: 1) })
        #expect(errors.contains { $0.kind == .unknownSession("99") })
        try writer.flush()
        let reader = try LogReader(path: writer.path)
        #expect(try reader.eventCount(session: id) == 5)
        #expect(try reader.eventCount(session: other) == 2)
        #expect(try reader.keyframeSeqs(session: other) == [0])
    }

    @Test("A batch the database refuses after validation fails alone; the batches before it in the transaction are written again")
    func refusedByDatabase() throws {
        let directory = try TemporaryDirectory()
        // An interval no loaded machine outlasts (10 s did, once, in CI): only flush commits.
        let (writer, id) = try makeWriter(directory, options: LogWriter.Options(commitInterval: 3_600))
        defer { writer.close() }
        let other = try writer.openSession(uuid: "other", app: "Counter", startedAt: Fixture.start)
        writer.append(Fixture.events(session: id, seqs: 0..<5))
        try writer.flush()
        // Someone else appends seq 5 behind the writer's back: its cached head is now stale.
        try Connection(path: writer.path).execute("""
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
            VALUES (\(id), 5, 0, 'x', '{"type":"x"}', '[]', '[]', 0)
            """)
        let completions = Completions()
        writer.append(Fixture.events(session: other, seqs: 0..<3), completion: completions.handler)
        writer.append(Fixture.events(session: id, seqs: 5..<7), completion: completions.handler)
        try writer.flush()
        // The refusal is reported as soon as it happens; the survivor once it is committed.
        let results = try #require(completions.wait(for: 2))
        #expect(results[0].error?.code == 1_811)
        #expect(results[0].error?.message.hasPrefix("rewind: an event must extend its session") == true)
        #expect(results[1].error == nil)
        let reader = try LogReader(path: writer.path)
        #expect(try reader.eventCount(session: other) == 3)
        #expect(try reader.eventCount(session: id) == 6)
        // The writer read the head again from the file.
        #expect(try writer.nextSeq(session: id) == 6)
    }

    @Test("After flush a new reader connection sees everything; completions come after the commit")
    func flushDurability() throws {
        let directory = try TemporaryDirectory()
        // An interval no loaded machine outlasts (10 s did, once, in CI): only flush commits.
        let (writer, id) = try makeWriter(directory, options: LogWriter.Options(commitInterval: 3_600))
        defer { writer.close() }
        let path = writer.path
        let seenAtCompletion = Completions()
        writer.append(Fixture.events(session: id, seqs: 0..<100)) { result in
            // A commit interval of an hour: only flush can have committed this batch.
            let count = (try? LogReader(path: path).eventCount(session: id)) ?? -1
            seenAtCompletion.handler(count == 100 ? result : .failure(LogError(kind: .closed, message: "saw \(count)")))
        }
        #expect(try LogReader(path: path).eventCount() == 0)
        try writer.flush()
        #expect(try LogReader(path: path).eventCount(session: id) == 100)
        let results = try #require(seenAtCompletion.wait(for: 1))
        #expect(results[0].error == nil)
    }

    @Test("Group commit: 10,000 events appended fast take far fewer commits than events")
    func groupCommit() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let before = writer.commitCount
        let events = Fixture.events(session: id, seqs: 0..<10_000)
        for start in stride(from: 0, to: events.count, by: 10) {
            writer.append(Array(events[start..<start + 10]))
        }
        try writer.flush()
        let commits = writer.commitCount - before
        #expect(commits >= 10)  // at most 1,000 events per transaction
        #expect(commits <= 200, "\(commits) commits for 10,000 events")
        #expect(try LogReader(path: writer.path).eventCount(session: id) == 10_000)
    }

    @Test("A commit interval bounds the wait without flush")
    func commitInterval() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let completions = Completions()
        writer.append(Fixture.events(session: id, seqs: 0..<3), completion: completions.handler)
        let results = try #require(completions.wait(for: 1, timeout: 30))
        #expect(results[0].error == nil)
    }

    @Test("Sessions: reopening a uuid keeps its id, ending records the time, closing refuses more work")
    func sessionsAndClose() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        let again = try writer.openSession(uuid: "3f2a0000-0000-4000-8000-000000000001", app: "Counter", startedAt: Date())
        #expect(again == id)
        try writer.endSession(id: id, at: Fixture.start.addingTimeInterval(60))
        #expect(throws: LogError.self) { try writer.endSession(id: 42, at: Date()) }
        writer.close()
        writer.close()
        let completions = Completions()
        writer.append([Fixture.event(session: id, seq: 0)], completion: completions.handler)
        #expect(try #require(completions.wait(for: 1))[0].error?.kind == .closed)
        #expect(throws: LogError.self) { try writer.flush() }
        let session = try LogReader(path: directory.path("log.db")).session(id: id)
        #expect(session.endedAt == Fixture.start.addingTimeInterval(60))
        #expect(session.meta == ["version": "1.0"])
    }

    @Test("A completion that calls the writer synchronously gets an error, not a deadlock")
    func reentrantCall() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let completions = Completions()
        writer.append([Fixture.event(session: id, seq: 0)]) { _ in
            let result = Result<Void, LogError> { () throws(LogError) in try writer.flush() }
            completions.handler(result)
        }
        try writer.flush()
        let results = try #require(completions.wait(for: 1))
        #expect(results[0].error?.kind == .calledFromWriterThread)
    }

    @Test("A new writer continues the seqs stored by an earlier one")
    func resumeSeqs() throws {
        let directory = try TemporaryDirectory()
        let (first, id) = try makeWriter(directory)
        first.append(Fixture.events(session: id, seqs: 0..<7))
        first.close()
        let second = try LogWriter(path: directory.path("log.db"))
        defer { second.close() }
        #expect(try second.nextSeq(session: id) == 7)
        let completions = Completions()
        second.append(Fixture.events(session: id, seqs: 7..<9), completion: completions.handler)
        second.append(Fixture.events(session: id, seqs: 7..<8), completion: completions.handler)
        let results = try #require(completions.wait(for: 2))
        #expect(results.compactMap(\.error).map(\.kind) == [.seqOutOfOrder(session: id, expected: 9, found: 7)])
    }
}

@Suite("LogWriter: checkpoints", .ownThreads)
struct CheckpointTests {
    /// The size of the file at `path`; 0 when there is none.
    func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    @Test("The WAL is copied into the main file while the writer is open, and stays bounded")
    func checkpointsWhileOpen() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        defer { writer.close() }
        let before = size(writer.path)
        // About 9 MB of events and keyframes: past the 1,000-page (4 MB) threshold twice.
        let big = String(repeating: "x", count: 400)
        var seq: Int64 = 0
        for _ in 0..<30 {
            var batch: [LogEvent] = []
            for _ in 0..<500 {
                var event = Fixture.event(session: id, seq: seq, keyframe: seq % 50 == 0, text: big)
                event.keyframe = event.keyframe.map { _ in ["blob": .string(big)] }
                batch.append(event)
                seq += 1
            }
            writer.append(batch)
            try writer.flush()
        }
        // The checkpoint thread works on its own time: wait for its result, with a deadline.
        let deadline = Date(timeIntervalSinceNow: 10)
        while size(writer.path) < before + 4_000_000 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(size(writer.path) >= before + 4_000_000, "main file \(size(writer.path)) bytes")
        #expect(size(writer.path + "-wal") < 16_000_000, "WAL \(size(writer.path + "-wal")) bytes")
        #expect(try LogReader(path: writer.path).eventCount(session: id) == 15_000)
    }

    /// A steady stream commits while the background checkpoint runs; on busy cores none of its
    /// passes covered the whole WAL, which only restarts from its beginning once one has, so the
    /// WAL grew for as long as the stream lasted (55 MB after 15,000 events at 5,000 a second
    /// through `rewind serve`). The writer now finishes the checkpoint itself past 4,000 frames.
    /// With the background thread off, that alone must keep the WAL bounded.
    @Test("Under a steady stream of commits the writer alone keeps the WAL bounded", arguments: [false, true])
    func steadyStream(background: Bool) throws {
        let directory = try TemporaryDirectory()
        var options = LogWriter.Options(commitInterval: 0.002)
        options.checkpointsInBackground = background
        let (writer, id) = try makeWriter(directory, options: options)
        defer { writer.close() }
        let text = String(repeating: "y", count: 1_000)
        var seq: Int64 = 0
        // About 70 MB into the log, a few events at a time, never waiting for a flush.
        while size(writer.path) + size(writer.path + "-wal") < 70_000_000 {
            writer.append((0..<20).map { _ in
                defer { seq += 1 }
                return Fixture.event(session: id, seq: seq, keyframe: seq == 0, text: text)
            })
            if seq % 2_000 == 0 { try writer.commit() }
        }
        try writer.flush()
        // 4,000 frames of 4 KiB plus what one commit adds.
        #expect(size(writer.path + "-wal") < 24_000_000, "WAL \(size(writer.path + "-wal")) bytes")
        #expect(size(writer.path) > 40_000_000, "main file \(size(writer.path)) bytes")
        #expect(try LogReader(path: writer.path).eventCount(session: id) == Int(seq))
    }
}
