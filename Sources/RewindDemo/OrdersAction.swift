import Rewind

/// The orders app's actions: loading, navigation (sent by the presenter service), details and
/// cancelling.
public enum OrdersAction: Codable, Sendable, Equatable {
    case load
    case loadSucceeded(request: Int, orders: [Order])
    case loadFailed(request: Int, message: String)
    case filterChanged(String)
    case presented(OrdersScreen)
    case dismissed
    case detailsRequested(orderID: Int)
    case detailsLoaded(request: Int, orderID: Int, timeline: [OrderDetails.Step])
    case detailsFailed(request: Int, orderID: Int, message: String)
    case cancel(orderID: Int)
    case cancelSucceeded(orderID: Int)
    case cancelFailed(orderID: Int, message: String)

    /// The action's `type` in the log.
    public var type: String {
        switch self {
        case .load: "orders/load"
        case .loadSucceeded: "orders/load/succeeded"
        case .loadFailed: "orders/load/failed"
        case .filterChanged: "orders/filter/changed"
        case .presented: "orders/navigation/presented"
        case .dismissed: "orders/navigation/dismissed"
        case .detailsRequested: "orders/details/requested"
        case .detailsLoaded: "orders/details/loaded"
        case .detailsFailed: "orders/details/failed"
        case .cancel: "orders/cancel"
        case .cancelSucceeded: "orders/cancel/succeeded"
        case .cancelFailed: "orders/cancel/failed"
        }
    }

    /// Decodes the object a recording or an inspector holds; an unknown `type` fails.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ActionKey.self)
        let type: String = try c.value("type")
        switch type {
        case "orders/load": self = .load
        case "orders/load/succeeded": self = .loadSucceeded(request: try c.value("request"), orders: try c.value("orders"))
        case "orders/load/failed": self = .loadFailed(request: try c.value("request"), message: try c.value("message"))
        case "orders/filter/changed": self = .filterChanged(try c.value("filter"))
        case "orders/navigation/presented": self = .presented(try c.value("screen"))
        case "orders/navigation/dismissed": self = .dismissed
        case "orders/details/requested": self = .detailsRequested(orderID: try c.value("orderID"))
        case "orders/details/loaded":
            self = .detailsLoaded(request: try c.value("request"), orderID: try c.value("orderID"), timeline: try c.value("timeline"))
        case "orders/details/failed":
            self = .detailsFailed(request: try c.value("request"), orderID: try c.value("orderID"), message: try c.value("message"))
        case "orders/cancel": self = .cancel(orderID: try c.value("orderID"))
        case "orders/cancel/succeeded": self = .cancelSucceeded(orderID: try c.value("orderID"))
        case "orders/cancel/failed": self = .cancelFailed(orderID: try c.value("orderID"), message: try c.value("message"))
        default: throw c.unknownType(type, expected: "an orders/… action")
        }
    }

    /// Encodes as one object: `type`, then the values.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ActionKey.self)
        try c.type(type)
        switch self {
        case .load, .dismissed: break
        case .loadSucceeded(let request, let orders):
            try c.value("request", request)
            try c.value("orders", orders)
        case .loadFailed(let request, let message):
            try c.value("request", request)
            try c.value("message", message)
        case .filterChanged(let filter): try c.value("filter", filter)
        case .presented(let screen): try c.value("screen", screen)
        case .detailsRequested(let orderID), .cancel(let orderID), .cancelSucceeded(let orderID):
            try c.value("orderID", orderID)
        case .detailsLoaded(let request, let orderID, let timeline):
            try c.value("request", request)
            try c.value("orderID", orderID)
            try c.value("timeline", timeline)
        case .detailsFailed(let request, let orderID, let message):
            try c.value("request", request)
            try c.value("orderID", orderID)
            try c.value("message", message)
        case .cancelFailed(let orderID, let message):
            try c.value("orderID", orderID)
            try c.value("message", message)
        }
    }
}
