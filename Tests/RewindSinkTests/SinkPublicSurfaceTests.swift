import Foundation
import RewindJSON
import Testing
import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

/// What an app reads of a server sink, through its public API alone (`import Rewind`, no
/// `@testable`): one status value and one wait; and what becomes of a sink of the app's own.
@Suite("A sink through its public API: one status, one wait, no sink of the app's own", .serialized, .ownThreads)
@MainActor
struct SinkPublicSurfaceTests {
    @Test("status says connected, where, and nothing undelivered once waitUntilDelivered returns true; the end is delivered too")
    func statusAndWait() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: peer.url, report: nil)
        defer { sink.disconnect() }
        let before = sink.status
        #expect(!before.isConnected && before.server == nil && before.connections == 0 && before.undelivered == 0
                    && before.droppedStates == 0 && before.catchingUp == 0 && before.localLogPath == nil && before.problem == nil)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(40, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitUntilDelivered(timeout: .seconds(30)) }))
        let status = sink.status
        #expect(status.isConnected)
        #expect(status.server == peer.url.appendingPathComponent("app"))
        #expect(status.connections == 1)
        #expect(status.undelivered == 0)
        #expect(status.problem == nil)
        #expect(peer.state.events.map(\.seq) == Array(0...40))

        // Ended: the wait covers the end too, which the peer then holds.
        store.stopRecording()
        #expect((await onOwnThread { sink.waitUntilDelivered(timeout: .seconds(30)) }))
        #expect(peer.state.sessions[recorder.session.uuid]?.ended == true)
    }

    @Test("with nothing listening, the wait gives up at its timeout and status names the server in its problem")
    func waitGivesUpAndStatusSays() async throws {
        let reserved = try ReservedPort()
        let port = reserved.port
        reserved.release()
        let url = URL(string: "ws://127.0.0.1:\(port)/app")!
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: url, report: nil)
        defer { sink.disconnect() }
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(5, to: store)
        recorder.flush()
        let started = ContinuousClock.now
        #expect(!(await onOwnThread { sink.waitUntilDelivered(timeout: .milliseconds(600)) }))
        #expect(ContinuousClock.now - started >= .milliseconds(600))
        #expect(await waitUntil(timeout: 10) { sink.status.problem?.contains("127.0.0.1:\(port)") == true },
                "\(String(describing: sink.status.problem))")
        let status = sink.status
        #expect(!status.isConnected)
        #expect(status.server == nil)
        #expect(status.undelivered == 6)
    }

    /// A sink of the app's own: the protocol is a marker, so it has nothing a recorder can call.
    final class OwnSink: RecordingSink {}

    @Test("a sink of the app's own stops the recording before it starts, in one sentence naming its type; the store goes on")
    func ownSinkIsRefused() async throws {
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .sinks([OwnSink()]), app: "Todos")
        let expected = try sendActions(3, to: store)
        let error = try #require(recorder.lastError)
        #expect(error.kind == .sink)
        #expect(error.description == "rewind: recording stopped: OwnSink is not a sink Rewind can write to (use LogFileSink or ServerSink)")
        #expect(recorder.recordedCount == 0)
        #expect(try LogStates.json(store.state) == expected.last)
    }
}
