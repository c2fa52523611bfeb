import Foundation
import Observation
import RewindJSON
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport
import RewindSupport

@MainActor
@Suite("Store", .ownThreads)
struct StoreTests {
    @Test("send runs the reducer") func sendRunsTheReducer() {
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.send(.increment)
        store.send(.add(4))
        #expect(store.state.count == 5)
    }

    @Test("observers see each change") func observersSeeEachChange() {
        let store = Store(initialState: AppState(), reducer: appReducer)
        let changes = Counter()
        func observe() {
            withObservationTracking { _ = store.state.count } onChange: { changes.increment() }
        }
        observe()
        store.send(.increment)
        #expect(changes.value == 1)
        observe()
        store.jump(to: AppState())
        #expect(changes.value == 2)
    }

    @Test("effects send actions caused by their parent") func effectsSendActionsCausedByTheirParent() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("effects.db")
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .file(path), app: "Effects")
        store.send(.increment)
        store.send(.load)
        await store.settle()
        #expect(store.state.loaded == 42)
        recorder.flush()
        let log = try LogStates(path: path)
        #expect(log.events.count == 4)
        #expect(log.events[2].action == ["load": [:]])
        #expect(log.events[3].action == ["loaded": ["_0": 42]])
        #expect(log.events[3].cause == 2)
        #expect(log.events[1].cause == nil)
    }

    @Test("middleware wraps dispatch in the ReSwift manner") func middlewareWrapsDispatchInTheReSwiftManner() {
        var seen: [String] = []
        let log = Middleware<AppState, AppAction> { _, getState in
            { next in
                { action in
                    seen.append("before \(getState().count)")
                    next(action)
                    seen.append("after \(getState().count)")
                }
            }
        }
        // Doubles every `add` and swallows `append`.
        let rewrite = Middleware<AppState, AppAction> { dispatch, _ in
            { next in
                { action in
                    switch action {
                    case .add(let amount): next(.add(amount * 2))
                    case .append: return
                    case .setRatio: dispatch(.increment)
                    default: next(action)
                    }
                }
            }
        }
        let store = Store(initialState: AppState(), reducer: appReducer, middleware: [log, rewrite])
        store.send(.add(3))
        store.send(.append("x"))
        store.send(.setRatio(2))
        #expect(store.state.count == 7)
        #expect(store.state.items.isEmpty)
        #expect(seen == ["before 0", "after 6", "before 6", "after 6", "before 6", "before 6", "after 7", "after 7"])
    }

    @Test("jump shows a past state and resume returns to the live state") func jumpShowsAPastStateAndResumeReturnsToTheLiveState() {
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.send(.add(5))
        var past = AppState()
        past.count = 1
        store.jump(to: past)
        #expect(store.isLocked && store.isJumped)
        #expect(store.state.count == 1)
        store.resume()
        #expect(!store.isLocked)
        #expect(store.state.count == 5)
        store.send(.increment)
        #expect(store.state.count == 6)
    }

    @Test("jump to JSON decodes the state") func jumpToJSONDecodesTheState() throws {
        let store = Store(initialState: AppState(), reducer: appReducer)
        try store.jump(to: ["count": 9, "items": ["a"], "auth": ["user": "bo", "token": ""], "ratio": 1])
        #expect(store.state.count == 9)
        #expect(store.state.auth.user == "bo")
    }

    @Test(arguments: [
        (JSONValue.object(["count": "nine", "items": [], "auth": ["user": "a", "token": ""], "ratio": 1] as JSONObject), "/count"),
        (JSONValue.object(["count": 1, "items": [1], "auth": ["user": "a", "token": ""], "ratio": 1] as JSONObject), "/items/0"),
        (JSONValue.object(["count": 1, "items": [], "auth": ["token": ""], "ratio": 1] as JSONObject), "/auth/user"),
    ])
    func aStateThatDoesNotDecodeIsRefusedNamingItsPath(json: JSONValue, pointer: String) {
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.send(.add(3))
        #expect {
            try store.jump(to: json)
        } throws: { error in
            guard let failure = error as? DecodeError else { return false }
            return failure.pointer == pointer && failure.subject == .state && failure.description.contains(pointer)
        }
        #expect(!store.isLocked)
        #expect(store.state.count == 3)
    }

    @Test("an action that does not decode is refused") func anActionThatDoesNotDecodeIsRefused() throws {
        let store = Store(initialState: AppState(), reducer: appReducer)
        try store.send(json: ["add": ["_0": 2]])
        #expect(store.state.count == 2)
        #expect {
            try store.send(json: ["add": ["_0": "two"]])
        } throws: { error in
            (error as? DecodeError)?.pointer == "/add/_0"
        }
        #expect(store.state.count == 2)
    }
}

/// A counter shared with an observation callback.
final class Counter: @unchecked Sendable {
    private let lock = Mutex()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// A store that goes away takes its work with it: effects are cancelled, and middleware that
/// dispatches later does nothing instead of crashing.
@Suite("A store that goes away", .ownThreads)
@MainActor
struct StoreLifetimeTests {
    final class Flag: @unchecked Sendable {
        private let lock = Mutex()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test("its running effects are cancelled")
    func effectsAreCancelled() async throws {
        let started = Flag()
        let cancelled = Flag()
        weak var gone: Store<AppState, AppAction>?
        do {
            let store = Store<AppState, AppAction>(initialState: AppState(), reducer: { _, _ in
                .run { _ in
                    started.set()
                    try? await Task.sleep(for: .seconds(60))
                    if Task.isCancelled { cancelled.set() }
                }
            })
            gone = store
            store.send(.increment)
            #expect(await waitUntil(timeout: 10) { started.isSet })
        }
        #expect(gone == nil)
        #expect(await waitUntil(timeout: 10) { cancelled.isSet }, "the effect ran on after its store went away")
    }

    @Test("a middleware that dispatches after the store is gone does nothing")
    func lateDispatchDoesNothing() async throws {
        final class Held: @unchecked Sendable {
            var dispatch: DispatchFunction<AppAction>?
            var getState: (@MainActor () -> AppState)?
        }
        let held = Held()
        let keeper = Middleware<AppState, AppAction> { dispatch, getState in
            held.dispatch = dispatch
            held.getState = getState
            return { next in { action in next(action) } }
        }
        weak var gone: Store<AppState, AppAction>?
        do {
            var initial = AppState()
            initial.count = 7
            let store = Store(initialState: initial, reducer: appReducer, middleware: [keeper])
            gone = store
            store.send(.increment)
            #expect(held.getState?().count == 8)
        }
        #expect(gone == nil)
        held.dispatch?(.increment)
        #expect(held.getState?().count == 7)
    }
}
