import Rewind
import Testing
@testable import RewindDemo
import RewindTestSupport

@MainActor
@Suite(.ownThreads) struct OrdersDemoTests {
    func loadedViewModel(failures: FakeNetwork.Failures = .none) async -> OrdersViewModel {
        let model = OrdersViewModel(network: FakeNetwork(seed: 21, latencyMs: 0...0, failures: failures), user: DemoRandom(seed: 21))
        model.loadOrders()
        await model.store.settle()
        return model
    }

    @Test("loading gives dozens of orders with consistent totals") func loadingGivesDozensOfOrdersWithConsistentTotals() async {
        let model = await loadedViewModel()
        let orders = model.store.state.orders
        #expect((30...45).contains(orders.count))
        #expect(orders.allSatisfy { $0.totalCents == $0.items.reduce(0) { $0 + $1.quantity * $1.unitPriceCents } })
        #expect(orders.allSatisfy { ($0.shipping != nil) == ($0.status == "shipped" || $0.status == "delivered") })
        #expect(!model.store.state.isLoading)
    }

    @Test("a load failure shows the error and a reload recovers") func aLoadFailureShowsTheErrorAndAReloadRecovers() async {
        let model = await loadedViewModel(failures: .requests([1]))
        #expect(model.store.state.orders.isEmpty)
        #expect(FakeNetwork.errors.contains(model.store.state.error ?? ""))
        model.loadOrders()
        await model.store.settle()
        #expect(model.store.state.error == nil)
        #expect(!model.store.state.orders.isEmpty)
    }

    @Test("opening an order pushes its details through the presenter") func openingAnOrderPushesItsDetailsThroughThePresenter() async throws {
        let model = await loadedViewModel()
        let order = model.store.state.visibleOrders[3]
        model.showOrderDetails(forOrderIndex: 3)
        #expect(model.store.state.topScreen == OrdersScreen(kind: "orderDetails", title: "Details of \(order.customer.name) \(order.number)",
                                                            orderID: order.id))
        #expect(model.store.state.details?.isLoading == true)
        await model.store.settle()
        let details = try #require(model.store.state.details)
        #expect(details.title == "Details of \(order.customer.name) \(order.number)")
        #expect(!details.isLoading)
        #expect(details.timeline.first?.status == "placed")
        #expect(details.timeline.last?.status == order.status)
        model.presenter.dismiss()
        #expect(model.store.state.navigation.map(\.kind) == ["orders"])
        #expect(model.store.state.details == nil)
    }

    @Test("cancelling an open order from the confirmation") func cancellingAnOpenOrderFromTheConfirmation() async throws {
        let model = await loadedViewModel()
        let index = try #require(model.store.state.visibleOrders.firstIndex { $0.isOpen })
        let order = model.store.state.visibleOrders[index]
        model.showOrderDetails(forOrderIndex: index)
        await model.store.settle()
        model.presenter.presentCancelConfirmation(for: order)
        #expect(model.store.state.navigation.map(\.kind) == ["orders", "orderDetails", "cancelConfirmation"])
        model.confirmCancel()
        #expect(model.store.state.navigation.map(\.kind) == ["orders", "orderDetails"])
        await model.store.settle()
        #expect(model.store.state.orders.first { $0.id == order.id }?.status == "cancelled")
        #expect(model.store.state.details?.timeline.last?.status == "cancelled")
        model.store.send(.filterChanged("open"))
        #expect(!model.store.state.visibleOrders.contains { $0.id == order.id })
    }
}
