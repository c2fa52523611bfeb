import Foundation
import RewindJSON
import RewindLog
import RewindServer
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

/// NaN and the infinities are recorded as strings, marked in the log, and come back as the same
/// `Double` in the verifier, replays and jumps.
@Suite("NaN and infinity round trip", .serialized, .ownThreads)
@MainActor
struct NonFiniteTests {
    static func drive(_ store: Store<AppState, AppAction>) {
        store.send(.setRatio(.nan))
        store.send(.increment)
        store.send(.setRatio(.infinity))
        store.send(.setRatio(-.infinity))
        store.send(.setRatio(0.5))
    }

    @Test("recorded to a file: marked in the log, verified, replayed and jumped to as the same Double")
    func fileRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nan.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "NaN")
        Self.drive(store)
        recorder.stop()

        let reader = try LogReader(path: path)
        let session = try reader.session(named: "latest")
        let marks = try reader.events(session: session.id).map(\.nonFinite)
        #expect(marks == [[], ["/action/setRatio/_0", "/state/ratio"], ["/state/ratio"],
                          ["/action/setRatio/_0", "/state/ratio"], ["/action/setRatio/_0", "/state/ratio"], []])

        // The verifier decodes "NaN" and "Infinity" back into Doubles and finds no difference.
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(inLog: path) == nil)

        // A replay sends the recorded actions, NaN included, through the reducer.
        let recording = try Recording.load(fromLog: path)
        let replayed = Store(initialState: AppState(), reducer: appReducer)
        try await replayed.replay(recording, from: 0, to: 3)
        #expect(replayed.state.ratio == .infinity)
        #expect(replayed.state.count == 1)

        // A jump to a recorded state holding NaN shows NaN.
        let atOne = try #require(try recording.state(at: 1))
        #expect(atOne["ratio"] == "NaN")
        try replayed.jump(to: atOne)
        #expect(replayed.state.ratio.isNaN)
        replayed.resume()
    }

    @Test("streamed to rewind serve: the server stores the marks the app sends")
    func serverStoresMarks() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        let served = try InProcessServer(log: log)
        defer { served.stop() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .server(served.url), app: "NaN")
        let sink = try #require(recorder.sinks.first as? ServerSink)
        Self.drive(store)
        #expect(await waitUntil(timeout: 20) { sink.isConnected && sink.unacknowledgedCount == 0 })
        recorder.stop()
        let reader = try LogReader(path: log)
        let session = try reader.session(named: recorder.session.uuid)
        #expect(try reader.events(session: session.id).map(\.nonFinite)[1] == ["/action/setRatio/_0", "/state/ratio"])
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(inLog: log, session: recorder.session.uuid) == nil)
    }
}
