import Foundation
import Rewind

// `RewindShopChild [ACTION…]`: the shop of RewindStoreChild on Rewind's own `Store`, for the CLI
// tests that run the same commands against both kinds of app. It records with no destination in
// its code (REWIND_SERVER, else the default log), prints `session UUID`, sends each ACTION (JSON,
// as the user would), and runs until it is killed, taking the inspector's commands.

struct ShopState: Codable, Sendable, Equatable {
    var cart: [Int] = []
    var total = 0
    var lastOrder: String?
}

enum ShopAction: Codable, Sendable {
    case add(Int)
    case remove(Int)
    case checkout
    case placed(String)
    case rewind
}

let shopReducer: Reducer<ShopState, ShopAction> = { state, action in
    switch action {
    case .add(let price):
        state.cart.append(price)
        state.total += price
    case .remove(let index):
        if state.cart.indices.contains(index) { state.total -= state.cart.remove(at: index) }
    case .checkout:
        let order = "order-\(state.total)"
        state.cart = []
        state.total = 0
        return .send(.placed(order))
    case .placed(let order):
        state.lastOrder = order
    case .rewind:
        break
    }
    return .none
}

let store = Store(initialState: ShopState(), reducer: shopReducer)
let recorder = store.record(app: "ShopChild", commands: .accepted)
FileHandle.standardOutput.write(Data("session \(recorder.session.uuid)\n".utf8))
for argument in CommandLine.arguments.dropFirst() {
    store.send(try JSONDecoder().decode(ShopAction.self, from: Data(argument.utf8)))
}
dispatchMain()
