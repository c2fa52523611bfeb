// README.md counter begin
import Foundation
import Rewind

nonisolated struct CounterState: Codable, Sendable { var count = 0 }
nonisolated enum CounterAction: Codable, Sendable { case increment, decrement }

let counterReducer: Reducer<CounterState, CounterAction> = { state, action in
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    }
    return .none
}

// server: the address `rewind serve` prints, URL(string: "ws://127.0.0.1:7433/app")!
@MainActor func startCounter(server: URL) -> Store<CounterState, CounterAction> {
    let store = Store(initialState: CounterState(), reducer: counterReducer)
    store.record(to: .server(server), app: "Counter", commands: .accepted)
    store.send(.increment)
    return store
}
// README.md counter end
