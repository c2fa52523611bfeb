import Foundation
import RewindJSON
import RewindLog
import RewindWire
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// A sink with several servers (`ServerSink(url:fallbacks:)`, `.servers`, a `REWIND_SERVER`
/// list): equivalent servers tried in order, the next when one is down. Each `ProtocolPeer` is a
/// real libwebsockets server on 127.0.0.1 with a store of its own, like `rewind serve` on a log
/// of its own.
@Suite("ServerSink with several servers", .serialized, .ownThreads)
@MainActor
struct FailoverTests {
    /// `ws://127.0.0.1:PORT/app`, as the sink names a server.
    static func app(_ port: Int) -> URL { URL(string: "ws://127.0.0.1:\(port)/app")! }

    @Test("the first server refuses connections: the session streams to the second, every event once, and the next session starts there")
    func firstRefusedStreamsToSecond() async throws {
        let closed = try ReservedPort()
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let reports = Reports()
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(closed.port)")!, fallbacks: [peer.url],
                              report: { reports.append($0) })
        defer { sink.disconnect() }
        #expect(sink.servers == [Self.app(closed.port), Self.app(peer.port)])
        #expect(sink.currentServer == nil)
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        let expected = try sendActions(120, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }),
                "\(sink.unacknowledgedCount) unacked")
        let state = peer.state
        #expect(state.events.map(\.seq) == Array(0...120))
        #expect(state.states == expected)
        #expect(state.problems.isEmpty, "\(state.problems)")
        #expect(state.duplicates == 0)
        // The status names the server the session is on; the refused one was said once.
        #expect(sink.currentServer == Self.app(peer.port))
        #expect(sink.isConnected)
        #expect(reports.all.count == 1, "\(reports.all)")
        #expect(reports.all.first?.hasPrefix("cannot connect to \(Self.app(closed.port).absoluteString): nothing accepted the connection") == true,
                "\(reports.all)")
        #expect(sink.lastConnectReport == reports.all.first)

        // A second session of this sink goes to the server that welcomed the first: one attempt.
        let attemptsBefore = sink.connectAttempts
        let second = Store(initialState: AppState(), reducer: appReducer)
        let secondRecorder = second.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(3, to: second)
        secondRecorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        #expect(peer.state.sessions[secondRecorder.session.uuid]?.events.count == 4)
        #expect(sink.connectAttempts - attemptsBefore == 1)
    }

    @Test("the server a session is on goes away: it moves to the next, which has a store of its own and gets the whole session from the local log")
    func lostServerGetsTheSessionFromTheLocalLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let first = try ProtocolPeer()
        // Its port, kept: a peer shut down says 0.
        let firstPort = first.port
        let second = try ProtocolPeer()
        defer { second.shutdown() }
        let reports = Reports()
        let sink = ServerSink(url: first.url, fallbacks: [second.url], localLog: directory.path("outbox"),
                              report: { reports.append($0) })
        defer { sink.disconnect() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        let uuid = recorder.session.uuid
        var expected = try sendActions(50, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        #expect(first.state.sessions[uuid]?.events.count == 51)
        #expect(sink.currentServer == Self.app(firstPort))
        // The app forgot what the first server acknowledged; only its local log still has it.
        #expect(sink.unacknowledgedCount == 0)

        first.shutdown()
        var model = store.state
        expected += try send(appActions(40), to: store, reducer: appReducer, model: &model)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }),
                "\(sink.unacknowledgedCount) unacked; \(String(describing: sink.lastServerError)); \(reports.all)")
        // The second server asked for seq 0 and got every event once, each state whole and right.
        let stored = try #require(second.state.sessions[uuid])
        #expect(stored.events.map(\.seq) == Array(0...90))
        #expect(stored.states == expected)
        #expect(stored.duplicates == 0)
        #expect(second.state.problems.isEmpty, "\(second.state.problems)")
        #expect(second.state.hellos.first?.session == uuid)
        #expect(sink.currentServer == Self.app(second.port))

        // The local log's mark names the server that holds the session now.
        let path = try #require(sink.localLogPath)
        #expect(path.hasSuffix("/Todos@127.0.0.1_\(firstPort).db"))
        sink.waitForCatchUp(timeout: .seconds(5))
        let reader = try LogReader(path: path)
        let local = try reader.session(named: uuid)
        #expect(try reader.deliveredSeq(session: local.id, server: Self.app(second.port).absoluteString) == 90)
        #expect(try reader.deliveredSeq(session: local.id, server: Self.app(firstPort).absoluteString) == -1)
        #expect(try reader.pendingDeliveries().isEmpty)
        recorder.stop()
    }

    @Test("without a local log, a server that lacks what another acknowledged is passed over with one sentence, and the session goes on where it is held")
    func withoutLocalLogAServerLackingTheStartIsPassedOver() async throws {
        // The first server drops the connection once, at the 20th event after the first 11
        // were acknowledged; the second has never seen the session.
        let first = try ProtocolPeer(dropAfter: 20)
        defer { first.shutdown() }
        let second = try ProtocolPeer()
        defer { second.shutdown() }
        let reports = Reports()
        let sink = ServerSink(url: first.url, fallbacks: [second.url], report: { reports.append($0) })
        defer { sink.disconnect() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        let uuid = recorder.session.uuid
        var expected = try sendActions(10, to: store)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        var model = store.state
        expected += try send(appActions(40), to: store, reducer: appReducer, model: &model)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }),
                "\(sink.unacknowledgedCount) unacked; \(reports.all)")
        // Everything is on the first server, once; the second got a hello and nothing else.
        let stored = try #require(first.state.sessions[uuid])
        #expect(stored.events.map(\.seq) == Array(0...50))
        #expect(stored.states == expected)
        #expect(first.state.problems.isEmpty, "\(first.state.problems)")
        #expect(second.state.hellos.contains { $0.session == uuid })
        #expect(second.state.sessions[uuid]?.events.isEmpty == true)
        #expect(sink.currentServer == Self.app(first.port))
        let sentence = try #require(reports.all.first { $0.contains(" lacks ") }, "\(reports.all)")
        #expect(sentence.hasPrefix("\(Self.app(second.port).absoluteString) lacks events 0…"), "\(sentence)")
        #expect(sentence.contains("of session \(uuid), which \(Self.app(first.port).absoluteString) acknowledged, and this sink keeps no local log to send them again; trying the next server"),
                "\(sentence)")
        #expect(reports.all.filter { $0.contains(" lacks ") }.count == 1, "\(reports.all)")
    }

    @Test("no server answers: one sentence per server, and the backoff grows between rounds")
    func noServerAnswers() async throws {
        let a = try ReservedPort()
        let b = try ReservedPort()
        let reports = Reports()
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(a.port)")!, fallbacks: [URL(string: "ws://127.0.0.1:\(b.port)")!],
                              flushTimeout: .zero, report: { reports.append($0) })
        defer { sink.disconnect() }
        let start = ContinuousClock.now
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([sink]), metadata: RecordingMetadata(app: "Todos"))
        recorder.flush()
        // Three rounds of two attempts: two waits between them, of at least 0.05 s and 0.1 s.
        #expect(await waitUntil(timeout: 30) { sink.connectAttempts >= 6 })
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        #expect(await waitUntil(timeout: 10) { reports.all.count == 2 })
        let all = reports.all
        #expect(Set(all.map { $0.components(separatedBy: ": ").first ?? "" })
            == ["cannot connect to \(Self.app(a.port).absoluteString)", "cannot connect to \(Self.app(b.port).absoluteString)"], "\(all)")
        #expect(sink.currentServer == nil)
        #expect(!sink.isConnected)
        recorder.stop()
    }

    @Test("a wrong entry or a server named twice: one sentence naming its position, and nothing is sent")
    func wrongEntries() async throws {
        let reports = Reports()
        let good = URL(string: "ws://127.0.0.1:7433")!
        let sink = ServerSink(url: good, fallbacks: [URL(string: "https://team.example/inspect")!], report: { reports.append($0) })
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([sink]), metadata: RecordingMetadata(app: "Todos"))
        #expect(await waitUntil { reports.all.count == 1 })
        #expect(reports.all == ["server 2 of 2: https://team.example/inspect names the path /inspect; apps connect to /app; write ws://HOST:PORT/app, the address `rewind serve` prints for apps"])
        #expect(sink.connectAttempts == 0)
        recorder.stop()

        let twice = Reports()
        let doubled = ServerSink(url: good, fallbacks: [URL(string: "ws://127.0.0.2:7433")!, URL(string: "http://127.0.0.1:7433/")!],
                                 report: { twice.append($0) })
        let other = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([doubled]), metadata: RecordingMetadata(app: "Todos"))
        #expect(await waitUntil { twice.all.count == 1 })
        #expect(twice.all == ["server 3 of 3, http://127.0.0.1:7433/, is server 1 again; name each server once"])
        other.stop()
    }
}
