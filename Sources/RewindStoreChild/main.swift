import Foundation
import RewindRecorder
import ShopModel

// `RewindStoreChild [ACTION…]`: a shop app (ShopModel) on a store of its own (`Store`, `Reducer`, `Effect`
// below, in the shapes of a small Redux store), built against RewindRecorder alone, for the CLI
// tests of the inspector's commands. It records with no destination in its code (REWIND_SERVER,
// else the default log) through a StoreLink, so it takes jump, resume, pause, dispatch, replay
// and branch. It prints `session UUID`, then sends each ACTION (JSON, as the user would), then
// every JSON action read from standard input, one a line. After every change of the state the
// store holds (an action, a jump, a replay's step) it prints `state JSON` (keys sorted). It runs
// until it is killed; SIGTERM ends it as an app ends its recording: `finish()`, whose result it
// prints as `finished JSON`, then exit 0.

/// What a reducer asks for after it ran.
enum Effect<Action> {
    case none
    case send(Action)
}

typealias Reducer<State, Action> = @Sendable (inout State, Action) -> Effect<Action>

/// The app's store: one state, changed by its reducer, on the main actor.
@MainActor
final class Store<State, Action> {
    private(set) var state: State
    private let reducer: Reducer<State, Action>
    var onChange: ((State) -> Void)?

    init(initialState: State, reducer: @escaping Reducer<State, Action>) {
        state = initialState
        self.reducer = reducer
    }

    func send(_ action: Action) {
        let effect = reducer(&state, action)
        onChange?(state)
        if case .send(let next) = effect { send(next) }
    }
}

let shopReducer: Reducer<ShopState, ShopAction> = { state, action in
    guard let next = state.apply(action) else { return .none }
    return .send(next)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let recorder = Recorder<ShopState, ShopAction>(initialState: ShopState(), metadata: RecordingMetadata(app: "StoreChild"))
let link = StoreLink(recorder: recorder) { state, action in _ = shopReducer(&state, action) }
let store = Store(initialState: ShopState()) { state, action in
    link.reduce(&state, action) { shopReducer(&$0, action) } ?? .none
}
link.connect(wake: .rewind) { store.send($0) }
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
store.onChange = { state in
    say("state " + String(decoding: (try? encoder.encode(state)) ?? Data(), as: UTF8.self))
}
// SIGTERM, on whichever thread it lands, writes a byte to a pipe (all a handler may safely do);
// a thread reading the pipe finishes the recording on the main actor.
var terminationPipe: [Int32] = [0, 0]
_ = pipe(&terminationPipe)
nonisolated(unsafe) var terminationWriteEnd: Int32 = terminationPipe[1]
let terminationReadEnd = terminationPipe[0]
signal(SIGTERM) { _ in
    var byte: UInt8 = 1
    _ = write(terminationWriteEnd, &byte, 1)
}
Thread {
    var byte: UInt8 = 0
    while read(terminationReadEnd, &byte, 1) != 1 {}
    DispatchQueue.main.async {
        Task { @MainActor in
            let result = await recorder.finish(timeout: .seconds(10))
            let line: [String: Any] = ["delivered": result.delivered, "acknowledged": result.acknowledged,
                                       "recorded": result.recorded, "keptOnDevice": result.keptOnDevice]
            say("finished " + String(decoding: (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data(), as: UTF8.self))
            exit(0)
        }
    }
}.start()

say("session \(recorder.session.uuid)")

@MainActor
func send(json line: String) {
    guard !line.isEmpty else { return }
    do {
        store.send(try JSONDecoder().decode(ShopAction.self, from: Data(line.utf8)))
    } catch {
        FileHandle.standardError.write(Data("RewindStoreChild: not an action: \(line)\n".utf8))
    }
}

for argument in CommandLine.arguments.dropFirst() { send(json: argument) }

// Standard input on a thread of its own; each line is sent on the main actor.
let reader = Thread {
    while let line = readLine() {
        DispatchQueue.main.async { MainActor.assumeIsolated { send(json: line) } }
    }
}
reader.start()

dispatchMain()
