import Rewind

/// An order as the orders API returns one.
public struct Order: Codable, Sendable, Equatable {
    /// Who ordered.
    public struct Customer: Codable, Sendable, Equatable {
        var name: String
        var email: String
        var city: String
        var country: String
    }
    /// One product in the order.
    public struct LineItem: Codable, Sendable, Equatable {
        var sku: String
        var name: String
        var quantity: Int
        var unitPriceCents: Int
    }
    /// How it travels, once shipped.
    public struct Shipping: Codable, Sendable, Equatable {
        var carrier: String
        var trackingNumber: String
        var eta: String
    }

    var id: Int
    var number: String
    /// `placed`, `packed`, `shipped`, `delivered` or `cancelled`.
    public var status: String
    var placedAt: String
    var customer: Customer
    var items: [LineItem]
    var totalCents: Int
    var shipping: Shipping?

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
    var title: String
    var orderID: Int?
}

/// The details screen's view model (OrderDetailsVM): a title and the order's history.
public struct OrderDetails: Codable, Sendable, Equatable {
    /// One step of the order's history.
    public struct Step: Codable, Sendable, Equatable {
        var status: String
        var at: String
        var note: String
    }
    var orderID: Int
    /// "Details of NAME #ID", as in the article.
    public var title: String
    var isLoading: Bool
    var timeline: [Step]
    var error: String?
}

/// The orders app's state: the list, the navigation stack and the open details.
public struct OrdersState: Codable, Sendable, Equatable {
    var orders: [Order] = []
    var isLoading = false
    var error: String?
    /// `all`, `open` or `done`.
    public var filter = "all"
    /// Bottom first; the list screen is always there.
    public var navigation: [OrdersScreen] = [OrdersScreen(kind: "orders", title: "Orders", orderID: nil)]
    var details: OrderDetails?
    var requests = 0

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
