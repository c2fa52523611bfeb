import Foundation
import RewindJSON
import RewindLog
import RewindServer
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

/// Branches: a recording recomputed with actions left out or replaced, checked against the
/// reducer run by hand, and asked for through `rewind serve` as an inspector would.
@MainActor
@Suite("Branches: skip and edit, recomputed by the reducer", .ownThreads)
struct BranchTests {
    let actions: [AppAction] = [.increment, .add(4), .append("a"), .add(7), .append("b"), .increment, .add(2)]

    /// The states the reducer gives for `actions` from `AppState()`, by hand.
    func byHand(_ actions: [AppAction?]) throws -> [JSONValue] {
        var state = AppState()
        var states = [try LogStates.json(state)]
        for action in actions {
            if let action { _ = appReducer(&state, action) }
            states.append(try LogStates.json(state))
        }
        return states
    }

    @Test("a branch leaves out and replaces actions, records every state as the reducer gives it, and leaves the live store alone")
    func branchMatchesTheReducer() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("branch.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Branchy")
        for action in actions { store.send(action) }
        recorder.flush()
        let live = store.state
        let recording = try Recording.load(fromLog: path, session: recorder.session.uuid)
        let report = try await store.branch(recording, skip: [2], edits: [4: .add(100)])
        #expect(report.skipped == [2] && report.edited == [4] && report.actionsApplied == actions.count - 1)
        #expect(store.state == live)

        let branch = try LogStates(path: path, session: report.sessionUUID)
        var expected: [AppAction?] = actions
        expected[1] = nil
        expected[3] = .add(100)
        #expect(branch.states == (try byHand(expected)))
        #expect(branch.events.count == actions.count + 1)
        #expect(branch.events[2].actionType == "@@rewind/skipped")
        #expect(branch.events[2].action["action"] == (try LogStates.json(AppAction.add(4))))
        #expect(branch.events[4].action == (try LogStates.json(AppAction.add(100))))
        #expect(branch.session.replayOf == recorder.session.uuid)
        #expect(branch.session.meta["branch"] == ["of": .string(recorder.session.uuid), "skipped": [2], "edited": [4]])
        // Seqs line up with the original, so the first difference is the skipped action.
        let reader = try LogReader(path: path)
        let original = try reader.session(named: recorder.session.uuid), other = try reader.session(named: report.sessionUUID)
        #expect(try reader.firstDifference(between: original.id, and: other.id) == 2)
        #expect(try reader.firstDifference(between: original.id, and: original.id) == nil)
        // Every time is the original's, seq 0 included (it was stamped when the branch was made
        // before, and offsets read negative): by default the first action's time.
        let originalEvents = try reader.events(session: original.id), branchEvents = try reader.events(session: other.id)
        #expect(branchEvents.dropFirst().map(\.at) == originalEvents.dropFirst().map(\.at))
        #expect(branchEvents[0].at == originalEvents[1].at)
        #expect(other.startedAt == branchEvents[0].at)
        #expect(other.isBranch && !original.isBranch)
        // Given the original's seq 0 time (the server sends it), seq 0 is stamped with it.
        let stamped = try await store.branch(recording, skip: [3], startedAt: originalEvents[0].at)
        let again = try reader.session(named: stamped.sessionUUID)
        #expect(try reader.events(session: again.id, from: 0, to: 0).first?.at == originalEvents[0].at)
        #expect(again.startedAt == original.startedAt)
        #expect(await store.finishRecording().delivered)
    }

    @Test("a seq outside the recording, or a store that does not record, is one sentence")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refuse.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Branchy")
        for action in actions { store.send(action) }
        recorder.flush()
        let recording = try Recording.load(fromLog: path, session: recorder.session.uuid)
        await #expect(throws: StoreReplayError("seq 99 is not an action of the recording (1…7)")) {
            try await store.branch(recording, skip: [99])
        }
        let bare = Store(initialState: AppState(), reducer: appReducer)
        await #expect(throws: StoreReplayError("the store is not recording: a branch is recorded where the app records")) {
            try await bare.branch(recording, skip: [1])
        }
        #expect(await store.finishRecording().delivered)
    }

    @Test("through rewind serve: an inspector's branch reaches the app; compare names the first difference; without the app, one sentence")
    func throughTheServer() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        // The app answers a branch from the main actor, which this test process shares with every
        // other test running beside it: on a loaded 2-core machine that can take longer than the
        // server's default 10 s command timeout, which is not what this test is about.
        let served = try InProcessServer(log: log) { $0.commandTimeout = .seconds(60) }
        defer { served.stop() }
        let server = served.server
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .server(served.url), app: "Branchy", commands: .accepted)
        for action in actions { store.send(action) }
        let sink = try #require(recorder.sinks.first as? ServerSink)
        #expect(await waitUntil(timeout: 30) { sink.isConnected && sink.unacknowledgedCount == 0 })
        let inspector = try InspectorClient(port: server.port!)
        defer { inspector.close() }
        #expect(await waitUntil(timeout: 30) { inspector.isConnected })
        let uuid = recorder.session.uuid
        inspector.send(["type": "command", "id": 1, "session": .string(uuid), "kind": "branch",
                        "skip": [3], "edit": ["6": (try LogStates.json(AppAction.add(50)))]])
        #expect(await waitUntil(timeout: 30) { inspector.reply(id: 1) != nil })
        let result = try #require(inspector.reply(id: 1))
        #expect(result["ok"] == true, "\(result)")
        let message = try #require(result["message"]?.stringValue)
        let branchUUID = try #require(message.split(separator: " ").dropFirst(3).first.map { String($0.dropLast()) })
        #expect(message.hasPrefix("branched into session "))
        // The branch reaches the server's log as a session of its own.
        #expect(await waitUntil(timeout: 30) { (try? LogReader(path: log).session(named: branchUUID).lastSeq) == 7 })
        var expected: [AppAction?] = actions
        expected[2] = nil
        expected[5] = .add(50)
        #expect(try LogStates(path: log, session: branchUUID).states == (try byHand(expected)))

        inspector.send(["type": "compare", "id": 2, "session": .string(uuid), "with": .string(branchUUID), "seq": 7])
        #expect(await waitUntil(timeout: 30) { inspector.reply(id: 2) != nil })
        let compare = try #require(inspector.reply(id: 2))
        #expect(compare["firstDifference"] == 3)
        let hand = try byHand(actions), branchHand = try byHand(expected)
        let patch = try JSONPatch(json: try #require(compare["patch"]))
        #expect(try patch.apply(to: hand[7]) == branchHand[7])

        // Without the app: one sentence saying the branch needs it.
        #expect(await store.finishRecording(timeout: .seconds(10)).delivered)
        sink.disconnect()
        // Once the server has seen the app go: its session is listed as not live.
        var gone = false
        for listing in 100..<400 where !gone {
            let id = JSONValue.number(JSONNumber(listing))
            inspector.send(["type": "sessions", "id": id])
            _ = await waitUntil(timeout: 10) { inspector.reply(id: id) != nil }
            let sessions = inspector.reply(id: id)?["sessions"]?.arrayValue ?? []
            gone = sessions.contains { $0["uuid"]?.stringValue == uuid && $0["live"] == false }
            if !gone { try? await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone)
        inspector.send(["type": "command", "id": 4, "session": .string(uuid), "kind": "branch", "skip": [1]])
        #expect(await waitUntil(timeout: 30) { inspector.reply(id: 4) != nil })
        let offline = try #require(inspector.reply(id: 4))
        #expect(offline["code"] == "app-offline")
        #expect(offline["message"]?.stringValue?.contains("a branch needs the app's reducer") == true)
    }
}
