// The shop the CLI tests' child apps run: RewindStoreChild on a store of its own, RewindShopChild
// on Rewind's `Store`. Both wrap this one model in their own store's reducer, so the tests that
// send the same commands to both compare the same states. Nothing of Rewind is in it.

/// The shop's state: a cart of prices, its total and the last order placed.
public struct ShopState: Codable, Sendable, Equatable {
    public var cart: [Int]
    public var total: Int
    public var lastOrder: String?

    public init(cart: [Int] = [], total: Int = 0, lastOrder: String? = nil) {
        self.cart = cart
        self.total = total
        self.lastOrder = lastOrder
    }
}

public enum ShopAction: Codable, Sendable {
    case add(Int)
    case remove(Int)
    case checkout
    case placed(String)
    /// What a StoreLink sends to set the state the store holds; the reducer never sees it.
    case rewind
}

extension ShopState {
    /// Applies `action`; returns the action the shop sends next (checkout's `placed`), which each
    /// app's reducer turns into its own store's effect.
    public mutating func apply(_ action: ShopAction) -> ShopAction? {
        switch action {
        case .add(let price):
            cart.append(price)
            total += price
        case .remove(let index):
            if cart.indices.contains(index) { total -= cart.remove(at: index) }
        case .checkout:
            let order = "order-\(total)"
            cart = []
            total = 0
            return .placed(order)
        case .placed(let order):
            lastOrder = order
        case .rewind:
            break
        }
        return nil
    }
}
