import Foundation
import RewindRecorder
import Testing
import RewindTestSupport

/// A store whose reducers are composed and never invoked by the link (TCA's `body`): the link's
/// `willReduce` runs first, the app's reducer next (it sees every action, the wake too), the
/// link's `didReduce` last.
@MainActor
final class ComposedStore {
    private(set) var state = TallyState()
    let link: StoreLink<TallyState, TallyAction>
    /// Every action the app's reducer saw, in order.
    private(set) var seen: [TallyAction] = []

    init(path: String, withStep: Bool) {
        let recorder = Recorder<TallyState, TallyAction>(initialState: TallyState(), to: .file(path),
                                                         metadata: RecordingMetadata(app: "Tally"))
        link = withStep ? StoreLink(recorder: recorder) { state, action in _ = LinkedStore.reducer(&state, action) }
                        : StoreLink(recorder: recorder)
    }

    func send(_ action: TallyAction) {
        link.willReduce(&state, action)
        seen.append(action)
        // An app reducer that does not ignore the wake: what it does to the state is undone.
        if case .wake = action { state.count = -1 } else { _ = LinkedStore.reducer(&state, action) }
        link.didReduce(&state, action)
    }
}

@Suite("StoreLink around composed reducers (willReduce, didReduce): TCA's wiring", .ownThreads)
@MainActor
struct StoreLinkComposedTests {
    @Test("a jump shows a past state while the app's actions change and record the live state; the wake is not recorded and the app's reducer cannot change what it set")
    func jumpAndResume() async throws {
        let folder = try TemporaryDirectory()
        let store = ComposedStore(path: folder.path("link.db"), withStep: false)
        defer { store.link.recorder.stop(); folder.cleanup() }
        store.link.connect(wake: .wake) { store.send($0) }
        store.send(.add(5))

        let jumped = await store.link.perform(Command(id: 1, kind: .jump, arguments: ["state": ["count": 99]]))
        #expect(jumped.ok, "\(jumped)")
        #expect(store.state.count == 99)
        store.send(.add(1))
        #expect(store.state.count == 99)

        let dispatched = await store.link.perform(Command(id: 2, kind: .dispatch, arguments: ["action": ["add": ["_0": 10]]]))
        #expect(dispatched.ok, "\(dispatched)")
        // A dispatch resumes first: 5 + 1 + 10.
        #expect(store.state.count == 16)
        _ = await store.link.perform(Command(id: 3, kind: .jump, arguments: ["state": ["count": 0]]))
        let resumed = await store.link.perform(Command(id: 4, kind: .resume))
        #expect(resumed.ok)
        #expect(store.state.count == 16)
        #expect(store.seen.filter { $0 == .wake }.count == 3)

        store.link.recorder.stop()
        let recording = try Recording.load(fromLog: folder.path("link.db"))
        #expect(recording.steps.map(\.action) == [["add": ["_0": 5]], ["add": ["_0": 1]], ["add": ["_0": 10]]])
        #expect(try recording.state(at: 2) == ["count": 6])
        #expect(try recording.state(at: 3) == ["count": 16])
    }

    @Test("a link made without a step answers a replay and a branch with the sentence that says why, and the store is not touched")
    func noStepRefusesReplays() async throws {
        let folder = try TemporaryDirectory()
        let store = ComposedStore(path: folder.path("link.db"), withStep: false)
        defer { store.link.recorder.stop(); folder.cleanup() }
        store.link.connect(wake: .wake) { store.send($0) }
        store.send(.add(2))
        let replay = await store.link.perform(Command(id: 1, kind: .replay, arguments: [
            "state": ["count": 10], "actions": [["add": ["_0": 2]]],
        ]))
        #expect(!replay.ok)
        #expect(replay.message == "the store's StoreLink was made without a step (StoreLink(recorder:)), so it cannot run recorded actions away from the store: replays and branches need StoreLink(recorder:step:)")
        let branch = await store.link.perform(Command(id: 2, kind: .branch, arguments: [
            "state": ["count": 0], "steps": [["action": ["add": ["_0": 2]]]], "skip": [1],
        ]))
        #expect(!branch.ok)
        #expect(branch.message?.contains("made without a step") == true, "\(branch)")
        #expect(store.state.count == 2)
        #expect(store.seen == [.add(2)])
        #expect(!store.link.recorder.isPaused)
    }

    @Test("with a step, a replay runs; an action the store is sent meanwhile is reduced at once (its effects run once) and recorded, and the replay goes on from its own states")
    func replayWithAStep() async throws {
        let folder = try TemporaryDirectory()
        let store = ComposedStore(path: folder.path("link.db"), withStep: true)
        defer { store.link.recorder.stop(); folder.cleanup() }
        let (result, sentDuringReplay) = await StoreLinkTests.replayWhileTheAppSends(link: store.link) { store.send($0) }
        #expect(result.ok, "\(result)")
        #expect(sentDuringReplay)
        #expect(store.seen.filter { $0 == .add(1000) }.count == 1)
        // The replay's states: 10 + 2 + 3; the action sent meanwhile changed the state the
        // store held then, and the replay's next state replaced it.
        #expect(store.state.count == 15)
    }
}
