import ComposableArchitecture

/// The shop's root feature, written as a TCA app writes one.
nonisolated struct AppFeature: Reducer {
    struct State: Codable, Sendable, Equatable {
        var cart: [Int] = []
        var total = 0
        var lastOrder: String?
    }

    enum Action: Codable, Sendable {
        case add(Int)
        case remove(Int)
        case checkout
        case placed(String)
        /// The StoreLink's wake (Docs/Integrating.md): it sets the state; this reducer never sees it.
        case rewind
    }

    var body: some ReducerOf<Self> {
        Reduce { state, action in
            switch action {
            case .add(let price):
                state.cart.append(price)
                state.total += price
                return .none
            case .remove(let index):
                guard state.cart.indices.contains(index) else { return .none }
                state.total -= state.cart.remove(at: index)
                return .none
            case .checkout:
                let order = "order-\(state.total)"
                state.cart = []
                state.total = 0
                return .send(.placed(order))
            case .placed(let order):
                state.lastOrder = order
                return .none
            case .rewind:
                return .none
            }
        }
    }
}
