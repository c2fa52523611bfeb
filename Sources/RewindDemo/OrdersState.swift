import Rewind

/// An order as the orders API returns one.
public struct Order: Codable, Sendable, Equatable {
    public struct Customer: Codable, Sendable, Equatable {
        public var name: String
        public var email: String
        public var city: String
        public var country: String
    }
    public struct LineItem: Codable, Sendable, Equatable {
        public var sku: String
        public var name: String
        public var quantity: Int
        public var unitPriceCents: Int
    }
    public struct Shipping: Codable, Sendable, Equatable {
        public var carrier: String
        public var trackingNumber: String
        public var eta: String
    }

    public var id: Int
    public var number: String
    /// `placed`, `packed`, `shipped`, `delivered` or `cancelled`.
    public var status: String
    public var placedAt: String
    public var customer: Customer
    public var items: [LineItem]
    public var totalCents: Int
    public var shipping: Shipping?

    /// Open orders can still be cancelled.
    public var isOpen: Bool { status == "placed" || status == "packed" }

    /// Order `id`, from a response's generator.
    static func make(id: Int, _ random: inout DemoRandom) -> Order {
        let person = DemoData.person(&random)
        let (city, _, country) = random.pick(DemoData.cities)
        let items = (0..<random.int(in: 1...5)).map { index -> LineItem in
            let (name, price) = random.pick(DemoData.products)
            return LineItem(sku: "SKU-\(1000 + index * 37 + price % 97)", name: name,
                            quantity: random.int(in: 1...3), unitPriceCents: price)
        }
        let status = random.pick(["placed", "packed", "shipped", "shipped", "delivered", "delivered"])
        let shipping = status == "shipped" || status == "delivered"
            ? Shipping(carrier: random.pick(DemoData.carriers),
                       trackingNumber: "TRK\(random.int(in: 100_000_000...999_999_999))", eta: DemoData.timestamp(&random))
            : nil
        return Order(id: id, number: "#\(40_000 + id)", status: status, placedAt: DemoData.timestamp(&random),
                     customer: Customer(name: person.name, email: "\(person.handle)@example.com", city: city, country: country),
                     items: items, totalCents: items.reduce(0) { $0 + $1.quantity * $1.unitPriceCents }, shipping: shipping)
    }
}

/// A screen on the navigation stack, as the presenter service put it there.
public struct OrdersScreen: Codable, Sendable, Equatable {
    /// `orders`, `orderDetails` or `cancelConfirmation`.
    public var kind: String
    public var title: String
    public var orderID: Int?
}

/// The details screen's view model (OrderDetailsVM): a title and the order's history.
public struct OrderDetails: Codable, Sendable, Equatable {
    public struct Step: Codable, Sendable, Equatable {
        public var status: String
        public var at: String
        public var note: String
    }
    public var orderID: Int
    /// "Details of NAME #ID", as in the article.
    public var title: String
    public var isLoading: Bool
    public var timeline: [Step]
    public var error: String?
}

/// The orders app's state: the list, the navigation stack and the open details.
public struct OrdersState: Codable, Sendable, Equatable {
    public var orders: [Order] = []
    public var isLoading = false
    public var error: String?
    /// `all`, `open` or `done`.
    public var filter = "all"
    /// Bottom first; the list screen is always there.
    public var navigation: [OrdersScreen] = [OrdersScreen(kind: "orders", title: "Orders", orderID: nil)]
    public var details: OrderDetails?
    public var requests = 0

    /// Nothing loaded, the list screen shown.
    public init() {}

    /// The screen on top of the stack.
    public var topScreen: OrdersScreen { navigation.last ?? OrdersScreen(kind: "orders", title: "Orders", orderID: nil) }

    /// The orders the list shows under the filter.
    public var visibleOrders: [Order] {
        switch filter {
        case "open": orders.filter(\.isOpen)
        case "done": orders.filter { !$0.isOpen }
        default: orders
        }
    }
}
