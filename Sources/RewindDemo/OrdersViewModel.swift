import Rewind

/// Opens and closes screens for the view models, as the article's `PresenterService`: view
/// models say what to show, the service turns it into navigation actions on the store.
@MainActor
public struct PresenterService {
    let store: Store<OrdersState, OrdersAction>

    /// Pushes the details of `order`.
    public func presentDetails(of order: Order) {
        store.send(.presented(OrdersScreen(kind: "orderDetails", title: "Details of \(order.customer.name) \(order.number)",
                                           orderID: order.id)))
    }

    /// Asks whether to cancel `order` (a modal).
    public func presentCancelConfirmation(for order: Order) {
        store.send(.presented(OrdersScreen(kind: "cancelConfirmation", title: "Cancel order \(order.number)?", orderID: order.id)))
    }

    /// Closes the screen on top.
    public func dismiss() {
        store.send(.dismissed)
    }
}

/// The orders list's view model (MVVM): loads orders, opens details through the presenter
/// service, cancels orders.
@MainActor
public final class OrdersViewModel: DemoApp {
    /// This app is `orders`.
    public static let kind = DemoAppKind.orders
    /// The store behind the view model.
    public let store: Store<OrdersState, OrdersAction>
    /// Navigation, as a service the view model calls.
    public let presenter: PresenterService
    private var user: DemoRandom
    private var patience = Patience()

    /// The view model over `network`, driven by a scripted user drawing from `user`.
    public init(network: FakeNetwork, user: DemoRandom) {
        self.user = user
        store = Store(initialState: OrdersState(), reducer: OrdersState.reducer(network: network))
        presenter = PresenterService(store: store)
    }

    /// Loads (or reloads) the orders.
    public func loadOrders() { store.send(.load) }

    /// The list's row at `index` was tapped: push its details and load its history.
    public func showOrderDetails(forOrderIndex index: Int) {
        let orders = store.state.visibleOrders
        guard orders.indices.contains(index) else { return }
        presenter.presentDetails(of: orders[index])
        store.send(.detailsRequested(orderID: orders[index].id))
    }

    /// Cancels the order the confirmation asks about and closes the confirmation.
    public func confirmCancel() {
        guard let id = store.state.topScreen.orderID, store.state.topScreen.kind == "cancelConfirmation" else { return }
        store.send(.cancel(orderID: id))
        presenter.dismiss()
    }

    /// The scripted user's next move (see ``DemoApp/userStep()``).
    public func userStep() {
        let state = store.state
        if state.isLoading || (state.topScreen.kind == "orderDetails" && state.details?.isLoading == true) {
            if patience.runsOut() {
                if state.isLoading { loadOrders() } else { presenter.dismiss() }
            }
            return
        }
        patience.reset()
        if state.orders.isEmpty || state.error != nil {
            loadOrders()
            return
        }
        let top = state.topScreen
        let roll = user.int(in: 0...99)
        switch top.kind {
        case "orderDetails":
            if roll < 30, let order = state.orders.first(where: { $0.id == top.orderID }), order.isOpen {
                presenter.presentCancelConfirmation(for: order)
            } else {
                presenter.dismiss()
            }
        case "cancelConfirmation":
            if roll < 60 { confirmCancel() } else { presenter.dismiss() }
        default:
            let visible = state.visibleOrders
            if roll < 70, !visible.isEmpty {
                showOrderDetails(forOrderIndex: user.int(in: 0...(visible.count - 1)))
            } else if roll < 85 {
                store.send(.filterChanged(user.pick(["all", "open", "done"].filter { $0 != state.filter })))
            } else {
                loadOrders()
            }
        }
    }
}
