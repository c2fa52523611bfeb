import Foundation
import Rewind
import RewindJSON
import RewindSupport

/// Sends `actions` to `store` and returns the state the recorder should see after each one, as
/// JSON: `reducer` runs on `model` beside the store, so the expectation never reads the store.
@MainActor
func send<State: Encodable, Action>(_ actions: [Action], to store: Store<State, Action>, reducer: Reducer<State, Action>,
                                    model: inout State) throws -> [JSONValue] {
    var states: [JSONValue] = []
    for action in actions {
        store.send(action)
        _ = reducer(&model, action)
        states.append(try LogStates.json(model))
    }
    return states
}

/// The actions ``sendActions(_:to:)`` sends: an `append` every third, an `add` otherwise.
func appActions(_ count: Int) -> [AppAction] {
    (1...count).map { index in index % 3 == 0 ? .append("item \(index)") : .add(index) }
}

/// Sends `count` actions to `store` and returns every state the recorder should see, as JSON
/// (seq 0 first).
@MainActor
func sendActions(_ count: Int, to store: Store<AppState, AppAction>) throws -> [JSONValue] {
    var model = store.state
    let initial = try LogStates.json(model)
    return [initial] + (try send(appActions(count), to: store, reducer: appReducer, model: &model))
}

/// The actions ``sendActions(_:to:)`` sends, as the recorder encodes them.
func recordedActions(_ count: Int) -> [JSONValue] {
    appActions(count).map { try! LogStates.json($0) }
}

/// Collects what a sink reports about failed connects.
final class Reports: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}
