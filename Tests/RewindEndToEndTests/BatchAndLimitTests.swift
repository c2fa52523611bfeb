import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import RewindWire
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// A state with a part whose size the test chooses.
struct BlobState: Codable, Sendable, Equatable {
    var count = 0
    var blob = ""
}

enum BlobAction: Codable, Sendable, Equatable {
    case add(Int)
    /// Makes `blob` that many bytes.
    case fill(Int)
    case clear
    /// Changes nothing; the action itself carries the text.
    case note(String)
}

let blobReducer: Reducer<BlobState, BlobAction> = { state, action in
    switch action {
    case .add(let amount): state.count += amount
    case .fill(let bytes): state.blob = String(repeating: "x", count: bytes)
    case .clear: state.blob = ""
    case .note: break
    }
    return .none
}

/// The states a blob store should record, as JSON.
@MainActor
func send(_ actions: [BlobAction], to store: Store<BlobState, BlobAction>, model: inout BlobState) throws -> [JSONValue] {
    try send(actions, to: store, reducer: blobReducer, model: &model)
}

@Suite("Batches and the server's limits", .serialized, .ownThreads)
@MainActor
struct BatchAndLimitTests {
    @Test("a 3,000-event catch-up goes out in batches: far fewer frames than events, every state rebuilds; one event alone goes as `event`")
    func catchUpInBatches() async throws {
        let reserved = try ReservedPort()
        let port = reserved.port
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, report: nil)
        _ = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        var expected = try sendActions(3_000, to: store)
        #expect(!sink.isConnected)
        #expect(await waitUntil(timeout: 30) { sink.unacknowledgedCount == 3_001 })

        reserved.release()
        let peer = try await ProtocolPeer.listening(on: port)
        defer { peer.shutdown() }
        #expect(await waitUntil(timeout: 60) { peer.state.events.count == 3_001 })
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        var state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.duplicates == 0)
        #expect(state.events.map(\.seq) == Array(0...3_000))
        #expect(state.states == expected)
        // 3,001 events in batches of at most 256: a dozen or so frames, not thousands.
        let perFrame = state.eventsPerFrame
        #expect(perFrame.reduce(0, +) == 3_001)
        #expect(perFrame.count <= 40, "\(perFrame.count) frames: \(perFrame)")
        #expect(perFrame.allSatisfy { $0 <= WireEventBatch.maxEvents })
        #expect(state.frames.allSatisfy { $0.count <= WireEventBatch.maxBytes })

        // Live again: one action goes at once, alone, as `event`.
        expected += try sendActions(1, to: store).dropFirst()
        #expect(await waitUntil { peer.state.events.count == 3_002 })
        state = peer.state
        #expect(state.states.last == expected.last)
        #expect(state.eventsPerFrame.last == 1)
        #expect(state.frames.last.map { Array($0.prefix(16)) == Array(#"{"type":"event","#.utf8) } == true)
    }

    @Test("a catch-up of 3,000 events into the real server arrives whole and verifies")
    func catchUpIntoTheServer() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        let reserved = try ReservedPort()
        let port = reserved.port
        let store = Store(initialState: AppState(), reducer: appReducer)
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, report: nil)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        defer { sink.disconnect() }
        let expected = try sendActions(3_000, to: store)
        #expect(await waitUntil(timeout: 30) { sink.unacknowledgedCount == 3_001 })

        reserved.release()
        let server = try RewindServer(configuration: RewindServerConfiguration(logPath: log, port: port))
        try server.start()
        defer { server.shutdown() }
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(60)) }))
        #expect(sink.lastServerError == nil)
        #expect(sink.connectionCount == 1)
        server.shutdown()
        let stored = try LogStates(path: log, session: recorder.session.uuid)
        #expect(stored.events.map(\.seq) == Array(0...3_000))
        #expect(stored.states == expected)
        let reader = try LogReader(path: log)
        #expect(try Timeline(reader: reader, session: stored.session.id).verify().passed)
    }

    @Test("a 28 MB state with rewind serve's default limits arrives on the first connection and verifies")
    func largeStateArrives() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        let reserved = try ReservedPort()
        let port = reserved.port
        reserved.release()
        let serve = try ServeProcess(port: port, log: log)
        defer { serve.kill(SIGKILL) }
        #expect(await waitUntil(timeout: 20) { serve.isListening }, "\(serve.text)")
        #expect(serve.text.contains("app messages up to 65.0 MiB"), "\(serve.text)")

        let reports = Reports()
        let store = Store(initialState: BlobState(), reducer: blobReducer)
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, report: { reports.append($0) })
        let recorder = store.record(to: .sinks([sink]), app: "Blobs")
        defer { sink.disconnect() }
        var model = BlobState()
        var expected = [try LogStates.json(model)]
        expected += try send([.add(1), .fill(28_000_000), .add(2)], to: store, model: &model)
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(120)) }),
                "\(sink.unacknowledgedCount) unacked; \(String(describing: sink.lastServerError))")
        #expect(sink.connectionCount == 1)
        #expect(sink.lastServerError == nil)
        #expect(reports.all.isEmpty)
        // The recording's result says all of it arrived, with no failure.
        let result = await recorder.finish(timeout: .seconds(30))
        #expect(result.delivered && result.acknowledged == 4 && result.lastError == nil, "\(result)")
        serve.kill(SIGTERM)

        let stored = try LogStates(path: log, session: recorder.session.uuid)
        #expect(stored.events.map(\.seq) == Array(0...3))
        #expect(stored.events.allSatisfy { !$0.coalesced })
        #expect(stored.states == expected)
        #expect(try runRewind(["verify", "--db", log]) == 0)
    }

    @Test("a state over --max-state is said once in one sentence (size, limit, flag), kept in the local log, never loops; later states arrive")
    func stateOverTheLimit() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        let local = directory.path("local.db")
        let reserved = try ReservedPort()
        let port = reserved.port
        reserved.release()
        let serve = try ServeProcess(port: port, log: log, arguments: ["--max-state", "1MiB"])
        defer { serve.kill(SIGKILL) }
        #expect(await waitUntil(timeout: 20) { serve.isListening }, "\(serve.text)")

        let reports = Reports()
        let store = Store(initialState: BlobState(), reducer: blobReducer)
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(port)")!, report: { reports.append($0) })
        let recorder = store.record(to: .sinks([sink, LogFileSink(path: local)]), app: "Blobs")
        defer { sink.disconnect() }
        var model = BlobState()
        var expected = [try LogStates.json(model)]
        expected += try send([.add(1)], to: store, model: &model)
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))

        // Seq 2 makes the state 2 MiB, seq 3 keeps it there, seq 4 brings it back. Each flush
        // hands what was sent to the sink first: the link has only the newest state to send
        // whole, so seq 4 must reach it alone to go whole.
        expected += try send([.fill(2 << 20), .add(2)], to: store, model: &model)
        recorder.flush()
        #expect(await waitUntil(timeout: 30) { !reports.all.isEmpty })
        expected += try send([.clear], to: store, model: &model)
        recorder.flush()
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))
        expected += try send([.add(3), .add(4)], to: store, model: &model)
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))

        // Nothing loops: watched for 2 s, in which a reconnect loop (0.1 s doubling) would
        // reconnect several times.
        let reconnected = await waitUntil(timeout: 2) { sink.connectionCount != 1 || sink.connectAttempts != 1 }
        #expect(!reconnected)
        #expect(sink.connectionCount == 1)
        #expect(sink.connectAttempts == 1)

        let sentences = reports.all
        #expect(sentences.count == 1, "\(sentences)")
        let sentence = try #require(sentences.first)
        #expect(sentence.contains("--max-state"))
        #expect(sentence.contains("is 2.0 MiB"))
        #expect(sentence.contains("1.0 MiB"))
        #expect(sentence.contains("event 2 "))
        #expect(!sentence.contains("\n"))
        #expect(sink.lastServerError?.contains("--max-state") == true)

        // The recording's result says all of it arrived, and names the state kept back.
        let result = await recorder.finish(timeout: .seconds(30))
        #expect(result.delivered, "\(result)")
        #expect(result.lastError?.contains("--max-state") == true, "\(result)")
        serve.kill(SIGTERM)

        // The server: seqs 2 and 3 kept their actions, not their states; the rest are whole.
        let stored = try LogStates(path: log, session: recorder.session.uuid)
        #expect(stored.events.map(\.seq) == Array(0...6))
        #expect(stored.events[2].coalesced && stored.events[3].coalesced)
        #expect(stored.states[2] == expected[1])
        #expect(stored.states[3] == expected[1])
        #expect(stored.states[4...] == expected[4...])
        #expect(stored.events.map(\.action) == (try LogStates(path: local, session: recorder.session.uuid)).events.map(\.action))
        #expect(try runRewind(["verify", "--db", log]) == 0)
        // The local log keeps the large state.
        let kept = try LogStates(path: local, session: recorder.session.uuid)
        #expect(kept.states == expected)
    }

    @Test("with a small message limit: frames never pass it, an event too large goes without its state, an action too large as a placeholder")
    func messageLimit() async throws {
        let limits = WireLimits(maxMessage: 64 << 10, maxState: 64 << 20)
        let peer = try ProtocolPeer(limits: limits)
        defer { peer.shutdown() }
        let reports = Reports()
        let store = Store(initialState: BlobState(), reducer: blobReducer)
        let sink = ServerSink(url: peer.url, report: { reports.append($0) })
        _ = store.record(to: .sinks([sink]), app: "Blobs")
        defer { sink.disconnect() }
        #expect(await waitUntil { sink.isConnected })
        var model = BlobState()
        var expected = [try LogStates.json(model)]
        // A burst of events with 1 KiB each: batches stay within 64 KiB.
        for index in 0..<200 { expected += try send([.add(index), .note(String(repeating: "n", count: 1_000))], to: store, model: &model) }
        #expect(await waitUntil { peer.state.events.count == 401 })
        // A state change too large for one message, then one that fits.
        expected += try send([.fill(100 << 10), .clear, .add(1)], to: store, model: &model)
        #expect(await waitUntil { peer.state.events.count == 404 })
        #expect(await waitUntil { !reports.all.isEmpty })
        // An action too large for any message.
        expected += try send([.note(String(repeating: "a", count: 100 << 10)), .add(5)], to: store, model: &model)
        #expect(await waitUntil { peer.state.events.count == 406 })
        #expect((await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(30)) }))

        let state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.frames.allSatisfy { $0.count <= limits.maxMessage }, "\(state.frames.map(\.count).max() ?? 0)")
        #expect(state.events.map(\.seq) == Array(0...405))
        // The fill went without its state; the next states are whole again (the clear's state
        // is the one before the fill, whether it went whole or also without its state).
        #expect(state.events[401].coalesced && state.events[401].patch == [])
        #expect(state.states[401] == expected[400])
        #expect(state.states[402...403] == expected[402...403])
        let placeholder = state.events[404].action
        #expect(placeholder["type"] == .string(WithheldEvent.placeholderType))
        #expect(state.states[405] == expected[405])
        #expect(sink.connectionCount == 1)

        let sentences = reports.all
        #expect(sentences.count == 2, "\(sentences)")
        #expect(sentences.allSatisfy { $0.contains("--max-message") && $0.contains("64.0 KiB") })
        #expect(sentences.first?.contains("event 401 ") == true)
        #expect(sentences.last?.contains("the action of event 404 ") == true)
    }

    @Test("a server that states no limits is held to its defaults: 16 MiB messages")
    func unstatedLimits() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let reports = Reports()
        let store = Store(initialState: BlobState(), reducer: blobReducer)
        let sink = ServerSink(url: peer.url, report: { reports.append($0) })
        _ = store.record(to: .sinks([sink]), app: "Blobs")
        defer { sink.disconnect() }
        var model = BlobState()
        var expected = [try LogStates.json(model)]
        expected += try send([.fill(17 << 20), .clear], to: store, model: &model)
        #expect(await waitUntil(timeout: 60) { peer.state.events.count == 3 })
        let state = peer.state
        #expect(state.problems.isEmpty)
        #expect(state.frames.allSatisfy { $0.count <= WireLimits.unstated.maxMessage })
        #expect(state.events[1].coalesced)
        #expect(state.states[2] == expected[2])
        #expect(await waitUntil { reports.all.count == 1 })
        #expect(reports.all.first?.contains("16.0 MiB") == true)
    }
}
