import Foundation
import RewindRecorder
import Testing
import RewindTestSupport

// A store of the app's own, linked to the inspector's commands by a StoreLink: a jump shows a
// past state while the app's actions change the live state underneath, a replay holds what is
// sent meanwhile, and a store that never connected says so.

struct TallyState: Codable, Sendable, Equatable {
    var count = 0
}

enum TallyAction: Codable, Sendable, Equatable {
    case add(Int)
    case wake
}

/// The app's store: its reducer is the link's, around the app's own.
@MainActor
final class LinkedStore {
    private(set) var state = TallyState()
    let link: StoreLink<TallyState, TallyAction>
    /// The effects the reducer returned, in order (`nil` for an action the link consumed).
    private(set) var effects: [String?] = []

    init(path: String) {
        let recorder = Recorder<TallyState, TallyAction>(initialState: TallyState(), to: .file(path),
                                                         metadata: RecordingMetadata(app: "Tally"))
        link = StoreLink(recorder: recorder) { state, action in _ = LinkedStore.reducer(&state, action) }
    }

    nonisolated static func reducer(_ state: inout TallyState, _ action: TallyAction) -> String {
        if case .add(let amount) = action { state.count += amount }
        return "effect of \(action)"
    }

    func send(_ action: TallyAction) {
        effects.append(link.reduce(&state, action) { Self.reducer(&$0, action) })
    }
}

@Suite("StoreLink: a store of the app's own takes the inspector's commands", .ownThreads)
@MainActor
struct StoreLinkTests {

    @Test("a jump shows a past state; the app's own actions change and record the live state underneath; resume shows it")
    func jumpKeepsTheLiveState() async throws {
        let folder = try TemporaryDirectory()
        let store = LinkedStore(path: folder.path("link.db"))
        // The recorder stops (its session ended) before its folder goes, with the log's WAL and
        // writer lock: nothing is written after.
        defer { store.link.recorder.stop(); folder.cleanup() }
        store.link.connect(wake: .wake) { store.send($0) }
        store.send(.add(5))

        let jumped = await store.link.perform(Command(id: 1, kind: .jump, arguments: ["state": ["count": 99]]))
        #expect(jumped.ok, "\(jumped)")
        #expect(store.state.count == 99)
        // The wake was consumed: no effect for it, nothing recorded.
        #expect(store.effects == ["effect of add(5)", nil])

        store.send(.add(1))
        #expect(store.state.count == 99)
        #expect(store.effects.last == "effect of add(1)")

        let resumed = await store.link.perform(Command(id: 2, kind: .resume))
        #expect(resumed.ok)
        #expect(store.state.count == 6)

        store.link.recorder.stop()
        let recording = try Recording.load(fromLog: folder.path("link.db"))
        #expect(recording.steps.map(\.action) == [["add": ["_0": 5]], ["add": ["_0": 1]]])
        #expect(try recording.state(at: 2) == ["count": 6])
    }

    @Test("a replay holds what the store is sent meanwhile and applies it after, to the state the replay ended in")
    func replayHoldsActions() async throws {
        let folder = try TemporaryDirectory()
        let store = LinkedStore(path: folder.path("link.db"))
        // The recorder stops (its session ended) before its folder goes, with the log's WAL and
        // writer lock: nothing is written after.
        defer { store.link.recorder.stop(); folder.cleanup() }
        let (result, sentDuringReplay) = await Self.replayWhileTheAppSends(link: store.link) { store.send($0) }
        #expect(result.ok, "\(result)")
        #expect(result.message == "replayed 2 actions")
        #expect(sentDuringReplay)
        // 10 + 2 + 3, then the held 1000.
        #expect(store.state.count == 1015)
    }

    /// Connects `link` to a store (`send`) whose app sends `add(1000)` once while a replay holds
    /// it, sends `add(1)`, then replays `add(2)`, `add(3)` from a count of 10; returns the
    /// replay's result and whether the app's action was sent during it.
    static func replayWhileTheAppSends(link: StoreLink<TallyState, TallyAction>,
                                       send: @escaping @MainActor (TallyAction) -> Void) async -> (result: (ok: Bool, message: String?), sent: Bool) {
        var sentDuringReplay = false
        link.connect(wake: .wake) { action in
            send(action)
            // The app sends its own action while the replay holds the store (once).
            if link.recorder.isPaused, !sentDuringReplay {
                sentDuringReplay = true
                send(.add(1000))
            }
        }
        send(.add(1))
        let result = await link.perform(Command(id: 1, kind: .replay, arguments: [
            "state": ["count": 10], "actions": [["add": ["_0": 2]], ["add": ["_0": 3]]],
        ]))
        return ((result.ok, result.message), sentDuringReplay)
    }

    @Test("a link whose store never connected says how to connect it")
    func notConnected() async throws {
        let folder = try TemporaryDirectory()
        let store = LinkedStore(path: folder.path("link.db"))
        // The recorder stops (its session ended) before its folder goes, with the log's WAL and
        // writer lock: nothing is written after.
        defer { store.link.recorder.stop(); folder.cleanup() }
        let jumped = await store.link.perform(Command(id: 1, kind: .jump, arguments: ["state": ["count": 1]]))
        #expect(!jumped.ok)
        #expect(jumped.message == "the store is not connected to its StoreLink: call link.connect(wake:send:) once the store exists")
    }

    @Test("a store whose reducer does not hand the wake to the link is told so")
    func wakeNotHandled() async throws {
        let folder = try TemporaryDirectory()
        let store = LinkedStore(path: folder.path("link.db"))
        // The recorder stops (its session ended) before its folder goes, with the log's WAL and
        // writer lock: nothing is written after.
        defer { store.link.recorder.stop(); folder.cleanup() }
        store.link.connect(wake: .wake) { _ in }
        let jumped = await store.link.perform(Command(id: 1, kind: .jump, arguments: ["state": ["count": 1]]))
        #expect(!jumped.ok)
        #expect(jumped.message?.hasPrefix("the store did not hand the link's wake action to StoreLink.reduce") == true)
        #expect(store.state.count == 0)
    }
}
