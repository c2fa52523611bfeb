import Foundation
import RewindJSON
import RewindWire
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

@Suite("Commands from the server", .serialized, .ownThreads)
@MainActor
struct ServerCommandTests {
    /// A store recording to a fresh peer, connected.
    private func connectedStore() async throws -> (Store<AppState, AppAction>, Recorder<AppState, AppAction>, ServerSink, ProtocolPeer) {
        let peer = try ProtocolPeer()
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .server(peer.url), app: "Todos", commands: .accepted)
        let sink = try #require(recorder.sinks.first as? ServerSink)
        #expect(sink.capacity == 10_000)
        #expect(sink.url.absoluteString == "ws://127.0.0.1:\(peer.port)/app")
        #expect(await waitUntil { sink.isConnected })
        return (store, recorder, sink, peer)
    }

    /// Sends `command` to `session`'s connection and waits for its result. Sent again, once, when
    /// none came within a minute: a command sent on a connection that closed under it (the app
    /// reconnects when a loaded machine delays its pongs) is lost with it, as the server would say.
    ///
    /// The session is named: the recorder's local log is the default one, which every test of
    /// the process shares, so the app may first deliver another test's session whose server had
    /// this port before. A command sent to the first hello's session went to that catch-up, whose
    /// connection closed once it was delivered: a full run waited six minutes for a result.
    private func run(_ kind: Command.Kind, _ arguments: JSONObject = [:], id: String,
                     on peer: ProtocolPeer, session: String) async throws -> AppMessage.CommandResult {
        var result: AppMessage.CommandResult?
        // The store performs it on the main actor, which every @MainActor test of the run shares,
        // and some of them hold it while they wait synchronously: the command waits its turn.
        for wait in [60.0, 240.0] where result == nil {
            peer.send(Command(id: .string(id), kind: kind, arguments: arguments), session: session)
            _ = await waitUntil(timeout: wait) { result = peer.state.results.first { $0.id == .string(id) }; return result != nil }
        }
        return try #require(result)
    }

    @Test("jump shows a past state; resume, or a dispatch as the user would, returns to the live state")
    func jumpAndResume() async throws {
        let (store, recorder, sink, peer) = try await connectedStore()
        defer { sink.disconnect(); peer.shutdown() }
        store.send(.add(5))
        let past = try LogStates.json(AppState(count: 99, items: ["then"]))

        let jumped = try await run(.jump, ["seq": 3, "state": past], id: "c1", on: peer, session: recorder.session.uuid)
        #expect(jumped.ok)
        #expect(store.state.count == 99)
        #expect(store.isLocked)

        let resumed = try await run(.resume, id: "c2", on: peer, session: recorder.session.uuid)
        #expect(resumed.ok)
        #expect(store.state.count == 5)
        #expect(!store.isLocked)

        // A dispatch during a jump is the user's: the live state shows again and takes it.
        _ = try await run(.jump, ["seq": 3, "state": past], id: "c3", on: peer, session: recorder.session.uuid)
        #expect(store.isJumped)
        let dispatched = try await run(.dispatch, ["action": try LogStates.json(AppAction.increment)], id: "c4", on: peer, session: recorder.session.uuid)
        #expect(dispatched.ok)
        #expect(!store.isJumped)
        #expect(store.state.count == 6)
    }

    @Test("dispatch applies a decoded action; one that does not decode fails with its path")
    func dispatch() async throws {
        let (store, recorder, sink, peer) = try await connectedStore()
        defer { sink.disconnect(); peer.shutdown() }

        let applied = try await run(.dispatch, ["action": ["add": ["_0": 3]]], id: "d1", on: peer, session: recorder.session.uuid)
        #expect(applied.ok)
        #expect(store.state.count == 3)

        let bad = try await run(.dispatch, ["action": ["add": ["_0": "three"]]], id: "d2", on: peer, session: recorder.session.uuid)
        #expect(!bad.ok)
        #expect(bad.message?.contains("/add/_0") == true)
        #expect(store.state.count == 3)

        let badJump = try await run(.jump, ["state": ["count": "many"]], id: "d3", on: peer, session: recorder.session.uuid)
        #expect(!badJump.ok)
        #expect(badJump.message?.contains("/count") == true)
        #expect(!store.isLocked)

        // The dispatched action is recorded and streamed like any other.
        recorder.flush()
        let uuid = recorder.session.uuid
        #expect(await waitUntil { peer.state.sessions[uuid]?.events.count == 2 })
        #expect(peer.state.sessions[uuid]?.events.last?.action == ["add": ["_0": 3]])
    }

    @Test("pause stops the recording, resume records again")
    func pauseAndResume() async throws {
        let (store, recorder, sink, peer) = try await connectedStore()
        defer { sink.disconnect(); peer.shutdown() }
        #expect(try await run(.pause, id: "p1", on: peer, session: recorder.session.uuid).ok)
        #expect(recorder.isPaused)
        store.send(.increment)
        #expect(try await run(.resume, id: "p2", on: peer, session: recorder.session.uuid).ok)
        #expect(!recorder.isPaused)
        store.send(.increment)
        recorder.flush()
        let uuid = recorder.session.uuid
        #expect(await waitUntil { peer.state.sessions[uuid]?.events.count == 2 })
        let last = try #require(peer.state.sessions[uuid]?.events.last)
        #expect(last.coalesced)
        #expect(peer.state.sessions[uuid]?.states.last == (try LogStates.json(AppState(count: 2))))
    }

    @Test("replay sends the given actions through the reducer from the given state")
    func replay() async throws {
        let (store, recorder, sink, peer) = try await connectedStore()
        defer { sink.disconnect(); peer.shutdown() }
        let increment = try LogStates.json(AppAction.increment)
        let result = try await run(.replay, ["state": try LogStates.json(AppState(count: 10)),
                                             "actions": [increment, increment, increment], "from": 0, "to": 3],
                                   id: "r1", on: peer, session: recorder.session.uuid)
        #expect(result.ok, "\(result.message ?? "")")
        #expect(result.message == "replayed 3 actions")
        #expect(store.state.count == 13)
        #expect(!store.isLocked)
        // The replay is recorded as a session of its own whose hello names the one it replays.
        #expect(await waitUntil { peer.state.hellos.contains { $0.replayOf == recorder.session.uuid } })

        let bad = try await run(.replay, ["actions": [["nope": [:]]]], id: "r2", on: peer, session: recorder.session.uuid)
        #expect(!bad.ok)
        #expect(bad.message?.contains("action at seq 1") == true)
    }

    @Test("a sink without a store answers that it takes no commands; a handler can be given")
    func plainRecorderHandler() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let sink = ServerSink(url: peer.url)
        defer { sink.disconnect() }
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([sink]),
                                                     metadata: RecordingMetadata(app: "Plain"))
        #expect(await waitUntil { sink.isConnected })
        let unhandled = try await run(.resume, id: "h1", on: peer, session: recorder.session.uuid)
        #expect(!unhandled.ok)

        sink.onCommand { command in
            CommandResult(ok: command.kind == .resume, message: "handled")
        }
        let handled = try await run(.resume, id: "h2", on: peer, session: recorder.session.uuid)
        #expect(handled.ok)
        #expect(handled.message == "handled")
        recorder.stop()
    }
}
