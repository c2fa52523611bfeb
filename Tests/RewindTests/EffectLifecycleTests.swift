import Foundation
import RewindJSON
import RewindLog
import RewindServer
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

/// Opens once; every waiter, before or after, goes on.
actor Gate {
    private var opened = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !opened else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        opened = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

struct FetchState: Codable, Sendable, Equatable {
    var loading = false
    var value = 0
    var taps = 0
    var query = ""
    var results: [String] = []
    var log: [String] = []
}

enum FetchAction: Codable, Sendable, Equatable {
    case fetch
    case fetched(Int)
    case tap
    case search(String)
    case found(String)
    case stopSearching
    case chain
    case note(String)
}

/// A reducer whose effects wait for `gate` before they answer, so a test decides when the
/// answer arrives (during a jump, during a replay).
func fetchReducer(_ gate: Gate) -> Reducer<FetchState, FetchAction> {
    { state, action in
        switch action {
        case .fetch:
            state.loading = true
            return .run { send in
                await gate.wait()
                await send(.fetched(7))
            }
        case .fetched(let value):
            state.loading = false
            state.value = value
        case .tap:
            state.taps += 1
        case .search(let query):
            state.query = query
            return .run { send in
                await gate.wait()
                guard !Task.isCancelled else { return }
                await send(.found(query))
            }
            .cancellable(id: "search", cancelInFlight: true)
        case .found(let query):
            state.results.append(query)
        case .stopSearching:
            return .cancel(id: "search")
        case .chain:
            return .merge(.send(.note("a")), .send(.note("b")), .run { send in await send(.note("c")) })
        case .note(let text):
            state.log.append(text)
        }
        return .none
    }
}

@MainActor
@Suite("Effects and time travel", .ownThreads)
struct EffectLifecycleTests {
    func recorded(_ path: String, _ uuid: String) throws -> [LogEvent] {
        try LogStates(path: path, session: uuid).events
    }

    @Test("an effect's answer that arrives during a jump is applied to the live state and recorded")
    func answerDuringJump() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("jump.db")
        let gate = Gate()
        let store = Store(initialState: FetchState(), reducer: fetchReducer(gate))
        let recorder = store.record(to: .file(path), app: "Fetch")
        store.send(.tap)
        store.send(.fetch)
        var past = FetchState()
        past.taps = 1
        store.jump(to: past)
        await gate.open()
        await store.settle()
        // The view still shows the past; the live state took the answer.
        #expect(store.isJumped)
        #expect(store.state == past)
        #expect(store.liveState.value == 7 && !store.liveState.loading)
        store.resume()
        #expect(store.state.value == 7)
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        #expect(events.map(\.actionType) == ["@@INIT", "tap", "fetch", "fetched"])
        #expect(events[3].cause == 2)
    }

    @Test("an action the user sends during a jump resumes first, then applies; nothing is dropped")
    func userSendResumes() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        let store = Store(initialState: FetchState(), reducer: fetchReducer(Gate()))
        let recorder = store.record(to: .file(path), app: "Fetch")
        store.send(.tap)
        store.send(.tap)
        store.jump(to: FetchState())
        #expect(store.state.taps == 0)
        store.send(.tap)
        #expect(!store.isJumped)
        #expect(store.state.taps == 3)
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        #expect(events.map(\.actionType) == ["@@INIT", "tap", "tap", "tap"])
        #expect(try LogStates(path: path, session: recorder.session.uuid).states.last?["taps"] == 3)
    }

    @Test("an effect's answer that arrives during a replay waits and is applied after it")
    func answerDuringReplay() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replay.db")
        let gate = Gate()
        let store = Store(initialState: FetchState(), reducer: fetchReducer(gate))
        let recorder = store.record(to: .file(path), app: "Fetch")
        store.send(.fetch)
        let recording = Recording(initialState: try JSONValueEncoder().encode(FetchState()),
                                  actions: [try JSONValueEncoder().encode(FetchAction.tap),
                                            try JSONValueEncoder().encode(FetchAction.tap)])
        // The second step waits 60 s, so the replay is surely running when the answer comes.
        let replay = Task { try await store.replay(recording, pace: .interval(.seconds(60))) }
        #expect(await eventually(timeout: 30) { store.isReplaying && store.liveState.taps == 1 })
        await gate.open()
        await store.settle()
        #expect(store.isReplaying)
        #expect(store.liveState.value == 0)
        store.send(.tap)
        #expect(store.liveState.taps == 1)
        replay.cancel()
        _ = await replay.result
        #expect(!store.isReplaying)
        // The replay ended at taps 1; then the answer, then the tap, in the order they came.
        #expect(store.state.value == 7)
        #expect(store.state.taps == 2)
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        // The replay's end is one event of the live session, before what waited for it.
        #expect(events.map(\.actionType) == ["@@INIT", "fetch", "@@rewind/replayed", "fetched", "tap"])
        #expect(events[2].action["actions"] == 1)
        #expect(events[3].cause == 1)
    }

    @Test("cancelInFlight cancels the search it supersedes; cancel(id:) stops the rest")
    func cancellation() async throws {
        let gate = Gate()
        let store = Store(initialState: FetchState(), reducer: fetchReducer(gate))
        let first = store.send(.search("po"))
        let second = store.send(.search("port"))
        #expect(first.isCancelled)
        #expect(!second.isCancelled)
        await gate.open()
        await second.finish()
        await first.finish()
        #expect(store.state.results == ["port"])

        let gate2 = Gate()
        let other = Store(initialState: FetchState(), reducer: fetchReducer(gate2))
        let running = other.send(.search("bend"))
        other.send(.stopSearching)
        #expect(running.isCancelled)
        await gate2.open()
        await other.settle()
        #expect(other.state.results.isEmpty)
    }

    @Test("send returns a task that can be awaited and cancelled")
    func storeTask() async throws {
        let gate = Gate()
        let store = Store(initialState: FetchState(), reducer: fetchReducer(gate))
        #expect(store.send(.tap).effectCount == 0)
        let task = store.send(.fetch)
        #expect(task.effectCount == 1)
        let waiter = Task { @MainActor in
            await task.finish()
            return store.state.value
        }
        await gate.open()
        #expect(await waiter.value == 7)

        let held = Gate()
        let other = Store(initialState: FetchState(), reducer: fetchReducer(held))
        let cancelled = other.send(.fetch)
        cancelled.cancel()
        await held.open()
        await cancelled.finish()
        #expect(other.state.value == 0)
        #expect(other.state.loading)
    }

    @Test(".send and .merge deliver their actions with the parent as cause")
    func sendAndMerge() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("merge.db")
        let store = Store(initialState: FetchState(), reducer: fetchReducer(Gate()))
        let recorder = store.record(to: .file(path), app: "Fetch")
        await store.send(.chain).finish()
        #expect(store.state.log == ["a", "b", "c"])
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        #expect(events.map(\.actionType) == ["@@INIT", "chain", "note", "note", "note"])
        #expect(events.dropFirst(2).map(\.cause) == [1, 1, 1])
    }

    @Test("a middleware that delays next in a task keeps each action's cause and site")
    func delayedMiddleware() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("delay.db")
        let gate = Gate()
        // Holds `fetched` back until the gate opens, while other actions pass.
        let delay = Middleware<FetchState, FetchAction> { _, _ in
            { next in
                { action in
                    guard case .fetched = action else { return next(action) }
                    Task { @MainActor in
                        await gate.wait()
                        next(action)
                    }
                }
            }
        }
        let answer = Gate()
        let store = Store(initialState: FetchState(), reducer: fetchReducer(answer), middleware: [delay])
        let recorder = store.record(to: .file(path), app: "Fetch")
        store.send(.fetch)
        await answer.open()
        // The answer reached the middleware and waits there; a tap goes by meanwhile.
        #expect(await eventually(timeout: 30) { store.liveState.loading })
        await store.settle()
        let tapLine = #line + 1
        store.send(.tap)
        await gate.open()
        #expect(await eventually(timeout: 30) { store.state.value == 7 })
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        #expect(events.map(\.actionType) == ["@@INIT", "fetch", "tap", "fetched"])
        // The old single field gave `fetched` the tap's cause (none); it is the fetch's.
        #expect(events[2].cause == nil)
        #expect(events[3].cause == 1)
        #expect(events[2].site?.line == tapLine)
        #expect(events[3].site?.file == "RewindTests/EffectLifecycleTests.swift")
    }

    @Test("every recorded action carries its send site; an effect's, the line that sent it")
    func sendSites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sites.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Sites")
        let line = #line + 1
        store.send(.increment)
        await store.send(.load).finish()
        #expect(await store.finishRecording().delivered)
        let events = try recorded(path, recorder.session.uuid)
        #expect(events[0].site == nil)
        #expect(events[1].site == SendSite(file: "RewindTests/EffectLifecycleTests.swift", line: line,
                                           function: "sendSites()"))
        #expect(events[2].site?.line == line + 1)
        // `.loaded` was sent inside the effect in TestModels.swift, caused by `.load`.
        #expect(events[3].site?.file == "RewindAppTestSupport/TestModels.swift")
        #expect(events[3].cause == 2)
    }
}

@MainActor
@Suite("Send sites and runs through rewind serve", .ownThreads)
struct SendSiteServerTests {
    @Test("the server stores each action's send site and the run; inspectors read them back")
    func serverStoresSites() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("served.db")
        let served = try InProcessServer(log: log)
        defer { served.stop() }
        let url = served.url
        // Two stores of one process: two sessions of one run.
        let cart = Store(initialState: AppState(), reducer: appReducer)
        let profile = Store(initialState: AppState(), reducer: appReducer)
        let cartRecorder = cart.record(to: .server(url), app: "Cart")
        let profileRecorder = profile.record(to: .server(url), app: "Profile")
        let line = #line + 1
        cart.send(.increment)
        await cart.send(.load).finish()
        profile.send(.add(2))
        for recorder in [cartRecorder, profileRecorder] {
            let sink = try #require(recorder.sinks.first as? ServerSink)
            #expect(await waitUntil(timeout: 30) { sink.isConnected && sink.unacknowledgedCount == 0 })
        }
        #expect(await cart.finishRecording(timeout: .seconds(10)).delivered)
        #expect(await profile.finishRecording(timeout: .seconds(10)).delivered)
        let reader = try LogReader(path: log)
        let cartSession = try reader.session(named: cartRecorder.session.uuid)
        let profileSession = try reader.session(named: profileRecorder.session.uuid)
        #expect(cartSession.run == RecordingSession.processRun)
        #expect(profileSession.run == cartSession.run)
        let events = try reader.events(session: cartSession.id)
        #expect(events[1].site == SendSite(file: "RewindTests/EffectLifecycleTests.swift", line: line, function: "serverStoresSites()"))
        #expect(events[3].site?.file == "RewindAppTestSupport/TestModels.swift")
        #expect(events[3].cause == 2)

        // An inspector's events page carries the site too.
        let inspector = try InspectorClient(port: served.server.port!)
        defer { inspector.close() }
        #expect(await waitUntil(timeout: 30) { inspector.isConnected })
        inspector.send(["type": "events", "id": 1, "session": .string(cartRecorder.session.uuid), "from": 1, "limit": 1])
        #expect(await waitUntil(timeout: 30) { inspector.reply(id: 1) != nil })
        let page = try #require(inspector.reply(id: 1))
        #expect(page["events"]?.arrayValue?.first?["site"]?["line"] == .number(JSONNumber(Int64(line))))
    }
}
