import Foundation
import RewindJSON
import RewindWire
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

@Suite("ServerSink streaming", .serialized, .ownThreads)
@MainActor
struct ServerSinkTests {
    @Test("every action reaches the server once and every state rebuilds equal")
    func streamsEveryActionOnce() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url, token: "secret")
        let recorder = store.record(to: .sinks([sink]), app: "Todos", version: "1.0")
        let expected = try sendActions(200, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        #expect(sink.unacknowledgedCount == 0)

        let state = peer.state
        #expect(state.events.map(\.seq) == Array(0...200))
        #expect(state.events.first?.keyframe != nil)
        #expect(state.events.dropFirst().allSatisfy { $0.patch != nil && !$0.coalesced })
        #expect(state.states == expected)
        #expect(state.problems.isEmpty)
        #expect(state.duplicates == 0)
        let hello = try #require(state.hellos.first)
        #expect(hello.session == recorder.session.uuid)
        #expect(hello.app == "Todos")
        #expect(hello.version == "1.0")
        #expect(hello.meta["host"]?.stringValue == RecordingMetadata.hostName())
        #expect(hello.lastAckedSeq == nil)
        #expect(hello.startedAt.map { abs($0 - recorder.session.startedAt.timeIntervalSince1970) < 0.001 } == true)
        #expect(state.authorizations == ["Bearer secret"])

        recorder.stop()
        #expect(await waitUntil { peer.state.sessions[recorder.session.uuid]?.ended == true })
    }

    @Test("an event the server refuses for what it holds makes one reconnect, then goes without its state change: no loop")
    func refusedEventIsNotResentForever() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        peer.refuse(40)
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url, report: nil)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        let expected = try sendActions(100, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }), "\(sink.unacknowledgedCount) unacked")
        let state = peer.state
        // Refused once; the next connection sent seq 40 without its change, and the state after
        // the last action whole, so the server ends where the app is.
        #expect(state.refusals == 1)
        #expect(state.connectionsOpened == 2)
        #expect(state.events.map(\.seq) == Array(0...100))
        #expect(state.events[40].coalesced)
        #expect(state.states.last == expected.last)
        #expect(state.problems.isEmpty, "\(state.problems)")
        #expect(sink.lastServerError?.hasPrefix("the server refused event 40 of session ") == true, "\(String(describing: sink.lastServerError))")
    }

    @Test("a dropped connection is reopened and the rest resent: nothing lost, nothing stored twice")
    func reconnectsAndResends() async throws {
        let peer = try ProtocolPeer(dropAfter: 50)
        defer { peer.shutdown() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        let expected = try sendActions(300, to: store)
        #expect(await waitUntil(timeout: 10) { peer.state.events.count == 301 })
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))

        let state = peer.state
        #expect(state.events.map(\.seq) == Array(0...300))
        #expect(state.states == expected)
        #expect(state.problems.isEmpty)
        #expect(state.connectionsOpened >= 2)
        #expect(state.hellos.count >= 2)
        #expect(state.hellos.allSatisfy { $0.session == recorder.session.uuid })
        // The reconnect reports what the app saw acknowledged: never more than the server acked
        // (48, the peer drops at its 50th event unacked). Acks still in flight when a connection
        // drops can be lost, so it may be less, or none at all when the first 50 came in one
        // batch (acked as a whole); the resume point is the server's nextSeq.
        let reported = try #require(state.hellos.last).lastAckedSeq
        #expect(reported.map { (0...48).contains($0) } ?? true)
        #expect(sink.connectionCount >= 2)
        #expect(recorder.lastError == nil)
    }

    @Test("an unreachable server: the app works on, states beyond the bound are dropped, actions are kept and sent when it appears")
    func unreachableThenAppears() async throws {
        // A port nothing listens on until the peer starts, held until then so that no other
        // test's server is given it meanwhile.
        let reserved = try ReservedPort()
        let port = reserved.port

        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, capacity: 8, flushTimeout: .seconds(60))
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        let expected = try sendActions(40, to: store)
        #expect(try LogStates.json(store.state) == expected.last)
        // The flush does not wait out its minute: nothing can be acknowledged while the server is away.
        let flushStart = ContinuousClock.now
        recorder.flush()
        #expect(ContinuousClock.now - flushStart < .seconds(30))
        #expect(!sink.lastFlushAcknowledged)
        #expect(recorder.isRecording)
        #expect(recorder.lastError == nil)
        #expect(!sink.isConnected)
        #expect(sink.unacknowledgedCount == 41)
        #expect(sink.droppedStateCount > 0)

        reserved.release()
        // Another process may hold the port for a moment after it is let go (a full run once saw
        // `Address already in use` here): tried again for up to 10 s.
        let peer = try await ProtocolPeer.listening(on: port, within: .seconds(10))
        defer { peer.shutdown() }
        #expect(await waitUntil(timeout: 15) { peer.state.events.count == 41 })
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        #expect(sink.isConnected)

        let state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.events.map(\.seq) == Array(0...40))
        // Every action is there, in order; the last state is whole.
        #expect(state.events.dropFirst().map(\.action) == recordedActions(40))
        #expect(state.states.last == expected.last)
        #expect(state.events.contains { $0.coalesced })

        // Later events stream as patches on top of it.
        let more = try sendActions(5, to: store)
        #expect(await waitUntil { peer.state.events.count == 46 })
        #expect(peer.state.states.last == more.last)
        #expect(peer.state.problems.isEmpty)
    }

    @Test("states dropped past the bound after the server stored their originals still resend consistently")
    func boundWithUnackedOriginals() async throws {
        // The peer stores but never acks, and drops the first connection after 20 events: the
        // sink drops states of events the server already holds, then resends from `nextSeq`.
        let peer = try ProtocolPeer(dropAfter: 20)
        defer { peer.shutdown() }
        peer.holdAcks()
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url, capacity: 8)
        _ = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        let expected = try sendActions(40, to: store)
        #expect(await waitUntil(timeout: 10) { peer.state.events.count == 41 })
        let state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.events.map(\.seq) == Array(0...40))
        #expect(state.events.dropFirst().map(\.action) == recordedActions(40))
        #expect(state.states.last == expected.last)
        #expect(state.hellos.count >= 2)
        #expect(sink.droppedStateCount > 0)
    }

    @Test("waitUntilEnded returns once the server has the session's end, and false while the server is away")
    func waitUntilEndedMeansDelivered() async throws {
        let peer = try ProtocolPeer()
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(30, to: store)
        recorder.stop()
        #expect((await onOwnThread { sink.waitUntilEnded(timeout: .seconds(10)) }))
        // The `end` frame has left this process (written, connection closed); the server reads
        // it from the socket.
        #expect(await waitUntil { peer.state.sessions[recorder.session.uuid]?.ended == true })
        #expect(peer.state.events.map(\.seq) == Array(0...30))
        let port = peer.port
        peer.shutdown()

        let away = Store(initialState: AppState(), reducer: appReducer)
        let awaySink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!)
        let awayRecorder = away.record(to: .sinks([awaySink]), app: "Todos")
        _ = try sendActions(5, to: away)
        awayRecorder.stop()
        #expect(!awaySink.waitUntilEnded(timeout: .milliseconds(300)))
        awaySink.disconnect()
    }

    @Test("a session stopped while the server is away is delivered whole, then ended, once it appears")
    func stoppedWhileAwayIsDelivered() async throws {
        let probe = try ProtocolPeer()
        let port = probe.port
        probe.shutdown()

        // A local log of its own: the default folder is shared with every other test of this
        // process, whose catch-ups could take this session for an earlier run's.
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let uuid = store.record(to: .sinks([ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, localLog: folder.path("outbox"), report: nil)]),
                                app: "Todos").session.uuid
        let expected = try sendActions(25, to: store)
        // The recorder and its sink are let go here; the unsent session is not.
        store.stopRecording()

        let peer = try ProtocolPeer(port: port)
        defer { peer.shutdown() }
        #expect(await waitUntil(timeout: 15) { peer.state.sessions[uuid]?.ended == true })
        let state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.events.map(\.seq) == Array(0...25))
        #expect(state.states == expected)
    }

}

