import Rewind

extension OrdersState {
    /// The orders reducer: requests go to `network` as effects; navigation only moves the stack
    /// (the presenter service decides what to push).
    static func reducer(network: FakeNetwork) -> Reducer<OrdersState, OrdersAction> {
        { state, action in
            switch action {
            case .load:
                state.requests += 1
                state.isLoading = true
                state.error = nil
                let request = state.requests
                return .run { send in
                    switch await network.request("orders", number: request) {
                    case .success(var random):
                        let orders = (1...random.int(in: 30...45)).map { Order.make(id: $0, &random) }
                        await send(.loadSucceeded(request: request, orders: orders))
                    case .failure(let message):
                        await send(.loadFailed(request: request, message: message))
                    }
                }
            case .loadSucceeded(let request, let orders):
                guard request == state.requests else { return .none }
                state.isLoading = false
                state.orders = orders
            case .loadFailed(let request, let message):
                guard request == state.requests else { return .none }
                state.isLoading = false
                state.error = message
            case .filterChanged(let filter):
                state.filter = filter
            case .presented(let screen):
                state.navigation.append(screen)
            case .dismissed:
                if state.navigation.count > 1 {
                    let closed = state.navigation.removeLast()
                    if closed.kind == "orderDetails" { state.details = nil }
                }
            case .detailsRequested(let orderID):
                guard let order = state.orders.first(where: { $0.id == orderID }) else { return .none }
                state.requests += 1
                state.details = OrderDetails(orderID: orderID, title: "Details of \(order.customer.name) \(order.number)",
                                             isLoading: true, timeline: [], error: nil)
                let request = state.requests
                let status = order.status, placedAt = order.placedAt
                return .run { send in
                    switch await network.request("orders/\(orderID)/history", number: request) {
                    case .success(var random):
                        let flow = ["placed", "packed", "shipped", "delivered"]
                        let reached = status == "cancelled" ? ["placed", "cancelled"] : Array(flow.prefix((flow.firstIndex(of: status) ?? 0) + 1))
                        let timeline = reached.enumerated().map { index, step in
                            OrderDetails.Step(status: step, at: index == 0 ? placedAt : DemoData.timestamp(&random),
                                              note: random.pick(["", "Left at the door", "Signed by the customer", "Warehouse B"]))
                        }
                        await send(.detailsLoaded(request: request, orderID: orderID, timeline: timeline))
                    case .failure(let message):
                        await send(.detailsFailed(request: request, orderID: orderID, message: message))
                    }
                }
            case .detailsLoaded(_, let orderID, let timeline):
                guard state.details?.orderID == orderID else { return .none }
                state.details?.isLoading = false
                state.details?.timeline = timeline
            case .detailsFailed(_, let orderID, let message):
                guard state.details?.orderID == orderID else { return .none }
                state.details?.isLoading = false
                state.details?.error = message
            case .cancel(let orderID):
                state.requests += 1
                let request = state.requests
                return .run { send in
                    switch await network.request("orders/\(orderID)/cancel", number: request) {
                    case .success: await send(.cancelSucceeded(orderID: orderID))
                    case .failure(let message): await send(.cancelFailed(orderID: orderID, message: message))
                    }
                }
            case .cancelSucceeded(let orderID):
                if let index = state.orders.firstIndex(where: { $0.id == orderID }) {
                    state.orders[index].status = "cancelled"
                    state.orders[index].shipping = nil
                }
                if state.details?.orderID == orderID {
                    state.details?.timeline.append(OrderDetails.Step(status: "cancelled", at: "now", note: "Cancelled by the customer"))
                }
            case .cancelFailed(_, let message):
                state.error = message
            }
            return .none
        }
    }
}
