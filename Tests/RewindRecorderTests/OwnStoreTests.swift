import Foundation
import RewindRecorder
import Testing
import RewindTestSupport

// An app with its own store, as a ReSwift or TCA app has: it imports RewindRecorder alone, and
// its `Store`, `Reducer`, `Middleware` and `Effect` are its own, so every name below resolves to
// the app's type without qualification.

struct CounterState: Codable, Sendable, Equatable {
    var count = 0
    var history: [String] = []
}

enum CounterAction: Codable, Sendable, Equatable {
    case increment
    case add(Int)
}

typealias Reducer = @Sendable (CounterAction, CounterState) -> CounterState
typealias Middleware = (CounterAction) -> Void

enum Effect {
    case none
}

let counterReducer: Reducer = { action, state in
    var state = state
    switch action {
    case .increment: state.count += 1
    case .add(let amount): state.count += amount
    }
    state.history.append("\(state.count)")
    return state
}

/// The app's own store, recording each action through a `Recorder` it owns.
@MainActor
final class Store {
    private(set) var state: CounterState
    private let reducer: Reducer
    private let middleware: [Middleware]
    let recorder: Recorder<CounterState, CounterAction>

    init(state: CounterState, reducer: @escaping Reducer, middleware: [Middleware] = [], logPath: String) {
        self.state = state
        self.reducer = reducer
        self.middleware = middleware
        recorder = Recorder(initialState: state, to: .file(logPath), metadata: RecordingMetadata(app: "Counter"))
    }

    func dispatch(_ action: CounterAction) -> Effect {
        for step in middleware { step(action) }
        state = reducer(action, state)
        recorder.record(action, state: state)
        return .none
    }
}

@Suite("An app on its own Store records through RewindRecorder", .ownThreads)
struct OwnStoreTests {
    @MainActor
    @Test("the app's Store, Reducer, Middleware and Effect are its own; its actions are recorded and replay")
    func ownStoreRecords() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-own-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.db").path

        var seen: [CounterAction] = []
        let store = Store(state: CounterState(), reducer: counterReducer, middleware: [{ seen.append($0) }], logPath: path)
        let actions: [CounterAction] = [.increment, .add(5), .increment]
        for action in actions { _ = store.dispatch(action) }
        store.recorder.stop()
        #expect(seen == actions)
        #expect(store.recorder.lastError == nil)

        let recording = try Recording.load(fromLog: path)
        #expect(recording.steps.count == 3)
        #expect(try recording.state(at: 3) == JSONValueEncoder().encode(store.state))
        let decoded = try recording.steps.map { try JSONValueDecoder().decode(CounterAction.self, from: $0.action) }
        #expect(decoded == actions)

        // The app's reducer verifies the recording; a reducer with a bug is caught at its seq.
        let verifier = ReplayVerifier<CounterState, CounterAction>(step: { state, action in state = counterReducer(action, state) })
        #expect(try verifier.firstMismatch(in: recording) == nil)
        let buggy = ReplayVerifier<CounterState, CounterAction>(step: { state, action in
            state = counterReducer(action, state)
            if action == .add(5) { state.count += 1 }
        })
        #expect(try buggy.firstMismatch(in: recording)?.seq == 2)
    }

    @Test("a missing log file is a LogError the app can catch without importing RewindLog")
    func missingLogIsLogError() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-missing-\(UUID().uuidString).db").path
        #expect(throws: LogError.self) { try Recording.load(fromLog: path) }
    }
}
