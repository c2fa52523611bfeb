import ComposableArchitecture

/// The shop's root feature, written as a TCA app writes one.
nonisolated struct AppFeature: Reducer {
    /// `@ObservableState struct State: Codable, Sendable, Equatable { var cart: [Int] = [];
    /// var total = 0; var lastOrder: String? }`, as TCA's macro expands it (macros cannot be
    /// built here): each property stored as `_name` behind a computed `name`, and the registrar.
    /// Rewind records it as `{"cart":…,"total":…,"lastOrder":…}`.
    struct State: Codable, Sendable, Equatable {
        var _cart: [Int] = []
        var _total = 0
        var _lastOrder: String?
        var _$observationRegistrar = ObservationStateRegistrar()

        var cart: [Int] {
            get { _cart }
            set { _cart = newValue }
        }
        var total: Int {
            get { _total }
            set { _total = newValue }
        }
        var lastOrder: String? {
            get { _lastOrder }
            set { _lastOrder = newValue }
        }
    }

    enum Action: Codable, Sendable {
        case add(Int)
        case remove(Int)
        case checkout
        case placed(String)
        /// The StoreLink's wake (Docs/Integrating.md): it sets the state; this reducer does nothing.
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
