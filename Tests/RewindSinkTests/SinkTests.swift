import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport
import RewindSupport

/// Keeps what a recorder sends, in memory.
final class MemorySink: SessionSink, @unchecked Sendable {
    private let lock = Mutex()
    private var calls: [String] = []
    private var stored: [RecordedEvent] = []
    private var sessions: [RecordingSession] = []

    var log: [String] { lock.withLock { calls } }
    var events: [RecordedEvent] { lock.withLock { stored } }
    var begun: [RecordingSession] { lock.withLock { sessions } }

    func begin(_ session: RecordingSession) throws {
        lock.withLock {
            calls.append("begin")
            sessions.append(session)
        }
    }

    func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        lock.withLock {
            calls.append("write \(events.count)")
            stored += events
        }
    }

    func flush() throws {
        lock.withLock { calls.append("flush") }
    }

    func end(_ session: RecordingSession, at date: Date) throws {
        lock.withLock { calls.append("end") }
    }
}

@Suite("Sinks and the plain Recorder API", .ownThreads)
struct SinkTests {
    @Test("any store can record through the recorder and a custom sink") func anyStoreCanRecordThroughTheRecorderAndACustomSink() throws {
        let sink = MemorySink()
        var state = AppState()
        let recorder = Recorder<AppState, AppAction>(
            initialState: state, to: .sinks([sink]),
            metadata: RecordingMetadata(app: "ReSwiftApp", version: "3.0", host: "test-host", extra: ["store": "ReSwift"]),
            options: RecorderOptions(redacting: ["/auth/token"]))
        // A ReSwift-style dispatch: reduce, then hand the result to the recorder.
        for action: AppAction in [.increment, .setToken("hidden"), .add(2)] {
            _ = appReducer(&state, action)
            recorder.record(action, state: state, durationNs: 10)
        }
        recorder.stop()

        #expect(sink.log.first == "begin")
        #expect(sink.log.suffix(2) == ["flush", "end"])
        let session = try #require(sink.begun.first)
        #expect(session.app == "ReSwiftApp")
        #expect(session.meta["version"] == "3.0")
        #expect(session.meta["host"] == "test-host")
        #expect(session.meta["store"] == "ReSwift")
        #expect(session.meta["redacted"] == ["/auth/token"])
        let events = sink.events.map(\.event)
        #expect(events.map(\.seq) == [0, 1, 2, 3])
        #expect(events.map(\.durationNs) == [0, 10, 10, 10])
        #expect(events.allSatisfy { $0.sessionID == 0 })
        #expect(!events.contains { $0.patch.serialized().contains("hidden") || $0.inverse.serialized().contains("hidden") })
        #expect(recorder.record(.increment, state: state) == nil)
    }
}
