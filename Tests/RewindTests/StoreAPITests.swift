import Foundation
import RewindJSON
import RewindWire
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

/// What the store's public API promises at the call site: a recording takes the inspector's
/// commands only when it says so, cancel ids of different types never meet, and middleware is
/// given `dispatch` then `getState`, as in ReSwift.
@Suite("The store's API", .serialized, .ownThreads)
@MainActor
struct StoreAPITests {
    // MARK: Commands, said at the call site

    /// Records `store` to a fresh peer with `commands`, connected; sends it a jump and returns
    /// the app's answer.
    private func jump(_ store: Store<AppState, AppAction>, commands: InspectorCommands<AppState, AppAction>) async throws
        -> AppMessage.CommandResult {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let recorder = store.record(to: .server(peer.url), app: "Todos", commands: commands)
        let sink = try #require(recorder.sinks.first as? ServerSink)
        defer { sink.disconnect() }
        #expect(await waitUntil { sink.isConnected })
        peer.send(Command(id: "j1", JumpArguments(seq: 3, state: try LogStates.json(AppState(count: 99)))), session: recorder.session.uuid)
        var result: AppMessage.CommandResult?
        _ = await waitUntil { result = peer.state.results.first { $0.id == "j1" }; return result != nil }
        recorder.stop()
        return try #require(result)
    }

    @Test("a recording with commands: .accepted performs a jump from the server")
    func acceptedCommands() async throws {
        let store = Store(initialState: AppState(), reducer: appReducer)
        let result = try await jump(store, commands: .accepted)
        #expect(result.ok, "\(result.message ?? "")")
        #expect(store.state.count == 99 && store.isJumped)
    }

    @Test("a recording that does not say commands: .accepted takes none, though its types could")
    func commandsIgnoredUnlessAsked() async throws {
        let store = Store(initialState: AppState(), reducer: appReducer)
        let result = try await jump(store, commands: .ignored)
        #expect(!result.ok)
        #expect(result.message == "this app does not take commands")
        #expect(store.state.count == 0 && !store.isJumped)

        // And with nothing said at all.
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let quiet = Store(initialState: AppState(), reducer: appReducer)
        let recorder = quiet.record(to: .server(peer.url), app: "Todos")
        let sink = try #require(recorder.sinks.first as? ServerSink)
        defer { sink.disconnect() }
        #expect(await waitUntil { sink.isConnected })
        peer.send(Command(id: "j2", JumpArguments(seq: 3, state: try LogStates.json(AppState(count: 99)))), session: recorder.session.uuid)
        #expect(await waitUntil { peer.state.results.contains { $0.id == "j2" && !$0.ok } })
        #expect(!quiet.isJumped)
        recorder.stop()
    }

    @Test("attach takes the same choice as record")
    func attachSaysItToo() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = Recorder<AppState, AppAction>(initialState: store.liveState, to: .server(peer.url),
                                                     metadata: RecordingMetadata(app: "Todos"))
        store.attach(recorder, commands: .accepted)
        let sink = try #require(recorder.sinks.first as? ServerSink)
        defer { sink.disconnect() }
        #expect(await waitUntil { sink.isConnected })
        peer.send(Command(id: "a1", JumpArguments(seq: 1, state: try LogStates.json(AppState(count: 5)))), session: recorder.session.uuid)
        #expect(await waitUntil { peer.state.results.contains { $0.id == "a1" && $0.ok } })
        #expect(store.state.count == 5)
        recorder.stop()
    }

    // MARK: Cancel ids

    private enum IDAction: Sendable {
        case startInt, startDouble, startInt64, cancelInt
    }

    @Test("cancel ids of different types do not cancel each other, though AnyHashable finds them equal")
    func cancelIDsKeepTheirType() async throws {
        // The premise: a bare AnyHashable would have mixed them up.
        #expect(AnyHashable(1) == AnyHashable(1.0) && AnyHashable(1) == AnyHashable(Int64(1)))
        #expect(EffectID(1) != EffectID(1.0))
        #expect(EffectID(1) != EffectID(Int64(1)))
        #expect(EffectID(1) == EffectID(1))

        let gate = Gate()
        let store = Store<Int, IDAction>(initialState: 0) { _, action in
            let wait = Effect<IDAction>.run { _ in await gate.wait() }
            switch action {
            case .startInt: return wait.cancellable(id: 1)
            case .startDouble: return wait.cancellable(id: 1.0)
            case .startInt64: return wait.cancellable(id: Int64(1))
            case .cancelInt: return .cancel(id: 1)
            }
        }
        let int = store.send(.startInt)
        let double = store.send(.startDouble)
        let int64 = store.send(.startInt64)
        store.send(.cancelInt)
        #expect(int.isCancelled)
        #expect(!double.isCancelled, "cancel(id: 1) stopped the work marked 1.0")
        #expect(!int64.isCancelled, "cancel(id: 1) stopped the work marked Int64(1)")
        await gate.open()
        await store.settle()
    }

    // MARK: Middleware

    @Test("a middleware is given dispatch first and getState second, as ReSwift gives them")
    func middlewareArgumentOrder() {
        var seen: [Int] = []
        // Positional names, so the order, not the labels, is what is tested.
        let probe = Middleware<AppState, AppAction> {
            let dispatch: DispatchFunction<AppAction> = $0
            let getState: @MainActor () -> AppState = $1
            return { next in
                { action in
                    if case .setRatio = action { return dispatch(.increment) }
                    next(action)
                    seen.append(getState().count)
                }
            }
        }
        let store = Store(initialState: AppState(), reducer: appReducer, middleware: [probe])
        store.send(.add(2))
        store.send(.setRatio(3))
        #expect(store.state.count == 3)
        #expect(seen == [2, 3])
    }
}
