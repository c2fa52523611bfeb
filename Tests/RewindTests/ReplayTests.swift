import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

@MainActor
@Suite("Replay", .ownThreads)
struct ReplayTests {
    /// Records a session of `actions` into `path` and returns the store's states.
    func recordSession(_ actions: [AppAction], into path: String) throws -> (uuid: String, states: [JSONValue]) {
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Original")
        var states = [try LogStates.json(store.state)]
        for action in actions {
            store.send(action)
            states.append(try LogStates.json(store.state))
        }
        recorder.stop()
        return (recorder.session.uuid, states)
    }

    let actions: [AppAction] = [.increment, .add(4), .append("a"), .add(7), .append("b"), .increment, .add(2)]

    @Test("replay reproduces the recorded states in a linked session") func replayReproducesTheRecordedStatesInALinkedSession() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replay.db")
        let original = try recordSession(actions, into: path)

        let store = Store(initialState: AppState(), reducer: appReducer)
        let live = store.record(to: .file(path), app: "Replayer")
        store.send(.add(100))
        let recording = try Recording.load(fromLog: path, session: original.uuid)
        let report = try await store.replay(recording, pace: .interval(.milliseconds(1)))
        #expect(report.actionsApplied == actions.count)
        #expect(try LogStates.json(store.state) == original.states.last)
        #expect(!store.isLocked)
        store.send(.increment)
        live.flush()

        let replayUUID = try #require(report.sessionUUID)
        let replayed = try LogStates(path: path, session: replayUUID)
        #expect(replayed.session.replayOf == original.uuid)
        #expect(replayed.states == original.states)
        #expect(replayed.session.endedAt != nil)
        // The live session records what the replay did to the live state as one event, its
        // patch from the last live state to the replay's end; the next action is itself.
        let liveLog = try LogStates(path: path, session: live.session.uuid)
        #expect(liveLog.events.count == 4)
        let mark = liveLog.events[2]
        #expect(mark.actionType == Recorder<AppState, AppAction>.replayedType)
        #expect(mark.action["session"]?.stringValue == replayUUID)
        #expect(mark.action["of"]?.stringValue == original.uuid)
        #expect(mark.action["from"] == 1)
        #expect(mark.action["to"] == .number(JSONNumber(Int64(actions.count))))
        #expect(!mark.coalesced)
        #expect(liveLog.states[2] == original.states.last)
        #expect(liveLog.events.last?.coalesced == false)
        #expect(liveLog.states.last?["count"] == 16)
        #expect(original.states.last?["count"] == 15)
        live.stop()
        // The live session, replay and all, verifies through the reducer (the mark sets the
        // recorded state), and branches across the mark.
        let liveRecording = try Recording.load(fromLog: path, session: live.session.uuid)
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(in: liveRecording) == nil)
        let brancher = Store(initialState: AppState(), reducer: appReducer)
        brancher.record(to: .file(path), app: "Brancher")
        let branch = try await brancher.branch(liveRecording, skip: [1])
        #expect(branch.actionsApplied == 1)
        let branched = try LogStates(path: path, session: branch.sessionUUID)
        #expect(branched.states[2] == original.states.last)
        #expect(branched.states[3]["count"] == 16)
        // Replayed again, across the mark: the mark sets the state it recorded.
        let again = try await brancher.replay(liveRecording, from: 1)
        #expect(again.actionsApplied == 1)
        #expect(brancher.state.count == 16)
        // An expectation at the mark is refused: it is no action of the app's.
        #expect(throws: ExpectationError.self) {
            try ReplayVerifier(reducer: appReducer).firstMismatch(in: liveRecording, expecting: [ReplayExpectation(seq: 2, pointer: "/count", json: "1")])
        }
    }

    @Test("a partial replay starts from the recorded state") func aPartialReplayStartsFromTheRecordedState() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("partial.db")
        let original = try recordSession(actions, into: path)
        let recording = try Recording.load(fromLog: path)
        let store = Store(initialState: AppState(), reducer: appReducer)
        let report = try await store.replay(recording, from: 2, to: 5)
        #expect(report.actionsApplied == 3)
        #expect(report.sessionUUID == nil)
        #expect(try LogStates.json(store.state) == original.states[5])
    }

    @Test("a recording of actions alone is replayed through the reducer") func aRecordingOfActionsAloneIsReplayedThroughTheReducer() async throws {
        let initial = try LogStates.json(AppState())
        let recording = Recording(initialState: initial, actions: [["add": ["_0": 2]], ["add": ["_0": 3]], ["increment": [:]]])
        let store = Store(initialState: AppState(), reducer: appReducer)
        try await store.replay(recording, from: 1)
        #expect(store.state.count == 6)
    }

    @Test("a bad action refuses the replay and leaves the store alone") func aBadActionRefusesTheReplayAndLeavesTheStoreAlone() async throws {
        let initial = try LogStates.json(AppState())
        let recording = Recording(initialState: initial, actions: [["add": ["_0": 2]], ["add": ["_0": "x"]]])
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.send(.add(9))
        await #expect {
            try await store.replay(recording)
        } throws: { error in
            guard let failure = error as? DecodeError else { return false }
            return failure.subject == .action(seq: 2) && failure.pointer == "/add/_0"
        }
        #expect(store.state.count == 9)
        #expect(!store.isLocked)
        await #expect(throws: StoreReplayError.self) { try await store.replay(recording, from: 3) }
    }
}

extension ReplayTests {
    @Test("a replay cannot start from a coalesced state") func aReplayCannotStartFromACoalescedState() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("coalesced.db")
        let gate = GateSink(LogFileSink(path: path))
        let recorded = Store(initialState: AppState(), reducer: appReducer)
        let recorder = Recorder<AppState, AppAction>(initialState: recorded.state, to: .sinks([gate]),
                                                     metadata: RecordingMetadata(app: "Coalesced"),
                                                     options: RecorderOptions(queueCapacity: 2))
        recorded.attach(recorder)
        for _ in 0..<6 { recorded.send(.add(1)) }
        gate.open()
        recorder.stop()
        let recording = try Recording.load(fromLog: path)
        let store = Store(initialState: AppState(), reducer: appReducer)
        // Seqs 1 and 2 filled the queue, 3…5 were coalesced, 6 was recorded.
        await #expect(throws: StoreReplayError.self) { try await store.replay(recording, from: 4) }
        try await store.replay(recording, from: 2)
        #expect(store.state.count == 6)
    }
}

@MainActor
@Suite("ReplayVerifier", .ownThreads)
struct ReplayVerifierTests {
    @Test("the unchanged reducer passes and a changed one is caught") func theUnchangedReducerPassesAndAChangedOneIsCaught() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("verify.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Verify", redacting: ["/auth/token"])
        let actions: [AppAction] = [.add(5), .setToken("t0ken"), .add(5), .append("x"), .add(3), .add(1)]
        for action in actions { store.send(action) }
        recorder.stop()

        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(inLog: path) == nil)

        let mismatch = try #require(try ReplayVerifier(reducer: changedReducer).firstMismatch(inLog: path))
        // The changed reducer differs once the count passes 10: at the `add(1)` of seq 6.
        #expect(mismatch.seq == 6)
        #expect(mismatch.action == ["add": ["_0": 1]])
        #expect(mismatch.changes.map(\.path.description) == ["/count"])
        #expect(mismatch.expected["count"] == 14)
        #expect(mismatch.actual["count"] == 15)
        #expect(mismatch.description.contains("seq 6"))
    }

    @Test("a flooded session is checked at the states that were recorded") func aFloodedSessionIsCheckedAtTheStatesThatWereRecorded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("flooded.db")
        let gate = GateSink(LogFileSink(path: path))
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = Recorder<AppState, AppAction>(initialState: store.state, to: .sinks([gate]),
                                                     metadata: RecordingMetadata(app: "Flood"),
                                                     options: RecorderOptions(queueCapacity: 2))
        store.attach(recorder)
        for _ in 0..<20 { store.send(.add(1)) }
        gate.open()
        recorder.stop()
        #expect(recorder.coalescedCount > 0)
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(inLog: path) == nil)
        let mismatch = try ReplayVerifier(reducer: changedReducer).firstMismatch(inLog: path)
        #expect(mismatch?.seq == 20)
    }
}
