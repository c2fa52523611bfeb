import ReSwift

/// The shop's state and actions, written as a ReSwift app writes them.
nonisolated struct AppState: Codable, Sendable, Equatable {
    var cart: [Int] = []
    var total = 0
    var lastOrder: String?
}

nonisolated enum AppAction: Action, Codable, Sendable {
    case add(Int)
    case remove(Int)
    case checkout
    case placed(String)
    /// The StoreLink's wake (Docs/Integrating.md): it sets the state; the reducer never sees it.
    case rewind
}

nonisolated func appReducer(action: Action, state: AppState?) -> AppState {
    var state = state ?? AppState()
    guard let action = action as? AppAction else { return state }
    switch action {
    case .add(let price):
        state.cart.append(price)
        state.total += price
    case .remove(let index):
        if state.cart.indices.contains(index) { state.total -= state.cart.remove(at: index) }
    case .checkout:
        state.cart = []
        state.total = 0
    case .placed(let order):
        state.lastOrder = order
    case .rewind:
        break
    }
    return state
}
