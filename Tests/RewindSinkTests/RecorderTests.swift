import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

@MainActor
@Suite("Recorder", .ownThreads)
struct RecorderTests {
    @Test("every state reads back from the log") func everyStateReadsBackFromTheLog() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Tests", version: "1.0")
        var expected = [try LogStates.json(store.state)]
        let actions: [AppAction] = [.increment, .add(5), .append("a"), .append("b"), .setRatio(0.5), .increment]
        for action in actions {
            store.send(action)
            expected.append(try LogStates.json(store.state))
        }
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.states == expected)
        #expect(log.events.count == actions.count + 1)
        #expect(log.events.map(\.seq) == Array(0...Int64(actions.count)))
        #expect(log.events[2].action == ["add": ["_0": 5]])
        #expect(log.events.allSatisfy { !$0.coalesced })
        // New recordings carry the tree hash (state hash version 2).
        #expect(log.events.last?.hash == expected.last?.treeHash)
        #expect(recorder.recordedCount == actions.count)
        #expect(recorder.coalescedCount == 0)
        #expect(recorder.lastError == nil)
    }

    struct Row: Codable, Sendable { var id: Int; var title: String; var done: Bool; var score: Double? }
    final class Tally: Codable, @unchecked Sendable { var count = 0 }
    struct Board: Codable, Sendable {
        var rows = (0..<50).map { Row(id: $0, title: "row \($0)", done: false) }
        var tally = Tally()
        var byName: [String: Row] = [:]
    }

    /// The recorder reuses the encodings of unchanged parts by default; the log it writes is the
    /// one it writes without, hashes and patches included, with a class instance in the state
    /// changing behind the same reference.
    @Test("reusing encodings writes the same log", arguments: [true, false])
    func reusingEncodingsWritesTheSameLog(reuse: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("board.db")
        var board = Board()
        let recorder = Recorder<Board, Int>(initialState: board, to: .file(path), metadata: RecordingMetadata(app: "Board"),
                                            options: RecorderOptions(reusesUnchangedEncodings: reuse))
        var expected = [try LogStates.json(board)]
        for step in 0..<40 {
            switch step % 4 {
            case 0: board.rows[step % 50].done.toggle()
            case 1: board.tally.count += 1
            case 2: board.byName["n\(step % 7)"] = board.rows[step % 50]
            default: board.rows.append(Row(id: 100 + step, title: "new", done: true, score: step % 8 == 3 ? .nan : 2.5))
            }
            recorder.record(step, state: board)
            // The class instance changes in place: wait until this state is written.
            recorder.flush()
            expected.append(try LogStates.json(board))
        }
        recorder.stop()
        let log = try LogStates(path: path)
        #expect(log.states == expected)
        #expect(log.events.last?.hash == expected.last?.treeHash)
        #expect(log.events.filter { !$0.nonFinite.isEmpty }.count == expected.filter { $0.serialized().contains("NaN") }.count)
        #expect(recorder.lastError == nil)
    }

    @Test("a flood keeps every action and coalesces the states in between") func aFloodKeepsEveryActionAndCoalescesTheStatesInBetween() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("flood.db")
        // The sink holds the recorder's thread until released, so the queue fills for sure.
        let gate = GateSink(LogFileSink(path: path))
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = Recorder<AppState, AppAction>(initialState: store.state, to: .sinks([gate]),
                                                     metadata: RecordingMetadata(app: "Flood"),
                                                     options: RecorderOptions(queueCapacity: 4))
        store.attach(recorder)
        let sends = 100
        for index in 0..<sends { store.send(.append("item \(index)")) }
        gate.open()
        recorder.flush()

        // Four snapshots fill the queue; the fifth is kept as the newest, and each later push
        // drops the previous newest: 95 states are coalesced, the last one is recorded.
        #expect(recorder.coalescedCount == sends - 5)
        let log = try LogStates(path: path)
        #expect(log.events.count == sends + 1)
        #expect(log.events.dropFirst().map(\.action) == (0..<sends).map { ["append": ["_0": .string("item \($0)")]] })
        let skipped = log.events.filter { $0.coalesced && $0.patch == [] }
        #expect(skipped.count == recorder.coalescedCount)
        #expect(log.events.last?.coalesced == true)
        #expect(log.states.last == (try LogStates.json(store.state)))
        for event in skipped {
            #expect(event.hash == log.events[Int(event.seq) - 1].hash)
        }
    }

    @Test("redacted values appear nowhere in the file") func redactedValuesAppearNowhereInTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("secret.db")
        var initial = AppState()
        initial.auth.token = "initial-SECRET-1"
        let store = Store(initialState: initial, reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Secrets", redacting: ["/auth/token", "/setToken/_0"])
        store.send(.setToken("typed-SECRET-2"))
        store.send(.increment)
        store.send(.setToken("typed-SECRET-3"))
        recorder.stop()

        let bytes = try directory.allBytes()
        #expect(!bytes.isEmpty)
        for secret in ["initial-SECRET-1", "typed-SECRET-2", "typed-SECRET-3", "SECRET"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) leaked")
        }
        let log = try LogStates(path: path)
        #expect(log.states.allSatisfy { $0["auth"]?["token"] == "<redacted>" })
        #expect(log.events[1].action == ["setToken": ["_0": "<redacted>"]])
        #expect(log.session.meta["redacted"] == ["/auth/token", "/setToken/_0"])
        #expect(store.state.auth.token == "typed-SECRET-3")
    }

    @Test("non-finite numbers are recorded as strings and flagged") func nonFiniteNumbersAreRecordedAsStringsAndFlagged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nan.db")
        var initial = AppState()
        initial.ratio = .infinity
        let store = Store(initialState: initial, reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "NaN")
        store.send(.setRatio(.nan))
        store.send(.setRatio(2))
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.states.map { $0["ratio"] } == ["Infinity", "NaN", 2])
        #expect(log.events[1].action == ["setRatio": ["_0": "NaN"]])
        #expect(log.session.meta["nonFinite"] == ["/state/ratio"])
        #expect(recorder.nonFiniteCount == 2)
        #expect(recorder.lastError == nil)
    }

    @Test("metadata is stored with the session") func metadataIsStoredWithTheSession() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("meta.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Meta", version: "2.3.4", meta: ["build": "debug", "flags": [1, 2]])
        recorder.stop()
        let log = try LogStates(path: path)
        #expect(log.session.app == "Meta")
        #expect(log.session.uuid == recorder.session.uuid)
        #expect(log.session.meta["version"] == "2.3.4")
        #expect(log.session.meta["host"] == .string(RecordingMetadata.hostName()))
        #expect(log.session.meta["build"] == "debug")
        #expect(log.session.meta["flags"] == [1, 2])
        #expect(log.session.endedAt != nil)
        #expect(!recorder.isRecording)
    }

    @Test("pause skips actions and the next event covers the gap") func pauseSkipsActionsAndTheNextEventCoversTheGap() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pause.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Pause")
        store.send(.increment)
        recorder.pause()
        store.send(.add(10))
        store.send(.add(100))
        recorder.resume()
        store.send(.increment)
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.events.count == 3)
        #expect(log.events.map(\.coalesced) == [false, false, true])
        #expect(log.states.last?["count"] == 112)
        #expect(store.state.count == 112)
    }

    @Test("an unwritable log stops recording and the store goes on") func anUnwritableLogStopsRecordingAndTheStoreGoesOn() throws {
        let directory = try TemporaryDirectory()
        // A path under a regular file cannot be created.
        _ = FileManager.default.createFile(atPath: directory.path("file"), contents: Data())
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(directory.path("file/app.db")), app: "Broken")
        recorder.flush()
        #expect(!recorder.isRecording)
        let error = try #require(recorder.lastError)
        #expect(error.kind == .sink)
        #expect(error.description.hasPrefix("rewind: recording stopped:"))
        #expect(error.description.contains("file/app.db"))
        for _ in 0..<3 { store.send(.increment) }
        #expect(store.state.count == 3)
        #expect(recorder.record(.increment, state: store.state) == nil)
    }

    @Test("an invalid redaction path records nothing") func anInvalidRedactionPathRecordsNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("bad.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Bad", redacting: ["auth/token"])
        store.send(.increment)
        #expect(!recorder.isRecording)
        #expect(recorder.lastError?.kind == .invalidRedactionPath("auth/token"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(store.state.count == 1)
    }

    @Test("actions that are not encodable are recorded by reflection") func actionsThatAreNotEncodableAreRecordedByReflection() throws {
        let encoder = ActionEncoder()
        #expect(encoder.encode(PlainAction.reset).value == ["type": "reset"])
        #expect(encoder.encode(PlainAction.move(from: 1, to: 2)).value == ["type": "move", "from": 1, "to": 2])
        #expect(encoder.encode(PlainAction.rename("x")).value == ["type": "rename", "value": "x"])
        #expect(encoder.encode(PlainAction.tag("a", 3)).value == ["type": "tag", "_0": "a", "_1": 3])
        let (value, nonFinite) = encoder.encode(PlainAction.tag("a", 3))
        #expect(LogEvent.actionType(of: value) == "tag")
        #expect(nonFinite.isEmpty)
    }

    @Test("the default log follows the environment") func theDefaultLogFollowsTheEnvironment() {
        #expect(RecordingDestination.defaultLogPath(environment: ["REWIND_DB": "/x/r.db"]) == "/x/r.db")
        #expect(RecordingDestination.defaultLogPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/h"]) == "/data/rewind/rewind.db")
        #expect(RecordingDestination.defaultLogPath(environment: ["HOME": "/h"]) == "/h/.local/share/rewind/rewind.db")
    }
}
