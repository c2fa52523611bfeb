import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import Testing
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// Sinks on one log share its one writer (`SharedLogWriters`): whatever they do at once (begin,
/// fail, go), no thread waits for another in a circle. A CI run once hung with recorders waiting
/// for a log's writer; these are the shapes that can, each with a deadline.
@Suite("Sinks sharing a log's writer", .ownThreads)
struct SharedWriterTests {
    /// Runs `body` on a thread of its own; `true` when it returned within `seconds`.
    static func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    static func session(_ number: Int) -> RecordingSession {
        RecordingSession(uuid: String(format: "aaaaaaaa-0000-4000-8000-%012d", number), app: "Shared", startedAt: Date(), meta: [:])
    }

    /// A batch the writer refuses (its first seq is not 0), so its completion reports a failure.
    static func refusedBatch() -> [RecordedEvent] {
        [RecordedEvent(event: LogEvent(sessionID: 0, seq: 5, at: Date(), action: ["type": "late"], hash: 0))]
    }

    /// The writer reports a refused batch from its thread, into the sink; a session beginning on
    /// that sink meanwhile waits for the same thread. The sink's lock is no longer held across
    /// that wait (it was: the writer then waited for the lock, the session for the writer).
    @Test("a refused batch's report and a session beginning on the same sink meet without waiting for each other")
    func refusedBatchAndBegin() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        for round in 0..<20 {
            let sink = LogFileSink(path: path)
            try sink.begin(Self.session(round * 2))
            try sink.write(Self.refusedBatch(), of: Self.session(round * 2))
            // Milliseconds alone; a deadlock never returns. 60 s rides over a loaded machine (the
            // whole suite beside it once took it past 20 s at round 0).
            let began = Self.finishes(within: 60) {
                #expect(throws: Never.self) { try sink.begin(Self.session(round * 2 + 1)) }
            }
            try #require(began, "round \(round): begin did not return within 60 s")
            // The refusal was reported into the sink: the next flush says so.
            #expect(throws: LogError.self) { try sink.flush() }
        }
        let uuids = Set(try LogReader(path: path).sessions().map(\.uuid))
        #expect(uuids == Set((0..<40).map { Self.session($0).uuid }))
    }

    /// Recorders on sinks of their own and on shared ones, on three files at once; sinks go (and
    /// their file's writer closes) while others begin; sinks whose batches are refused report from
    /// the writer's thread and may go there. Everything ends in time, and every session a recorder
    /// flushed is in its file.
    @Test("many recorders beginning, failing and going on three files at once all end, and every flushed session reads back")
    func manyAtOnce() throws {
        let directory = try TemporaryDirectory()
        let paths = (0..<3).map { directory.path("log\($0).db") }
        let shared = paths.map { LogFileSink(path: $0) }
        let flushed = Mutex<[String: Set<String>]>([:])
        let threads = 6
        let rounds = 40
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                for round in 0..<rounds {
                    let file = (thread + round) % paths.count
                    let path = paths[file]
                    if round % 5 == 4 {
                        // A sink of its own whose batch is refused, then let go at once: its
                        // report (and perhaps its end) comes on the writer's thread.
                        let sink = LogFileSink(path: path)
                        let session = Self.session(10_000 + thread * rounds + round)
                        if (try? sink.begin(session)) != nil {
                            try? sink.write(Self.refusedBatch(), of: session)
                            flushed.withLock { _ = $0[path, default: []].insert(session.uuid) }
                        }
                        continue
                    }
                    let destination: RecordingDestination = round % 2 == 0 ? .sinks([shared[file]]) : .file(path)
                    let recorder = Recorder<Int, String>(initialState: 0, to: destination, metadata: RecordingMetadata(app: "Shared"))
                    for step in 0..<(round % 4) { recorder.record("step", state: step + 1) }
                    recorder.flush()
                    if recorder.lastError == nil {
                        flushed.withLock { _ = $0[path, default: []].insert(recorder.session.uuid) }
                    } else {
                        Issue.record("thread \(thread) round \(round): \(String(describing: recorder.lastError))")
                    }
                }
            }.start()
        }
        try #require(group.wait(timeout: .now() + 120) == .success, "the recorders did not all finish within 120 s")
        for path in paths {
            let stored = Set(try LogReader(path: path).sessions().map(\.uuid))
            let expected = flushed.withLock { $0[path] ?? [] }
            #expect(expected.isSubset(of: stored), "\(path): \(expected.subtracting(stored).count) flushed sessions missing")
        }
    }
}
