import Rewind
import Testing
@testable import RewindDemo
import RewindTestSupport

/// Each app's scripted user, run step by step against an instant back end that fails now and
/// then, reaches the screens its seed article describes.
@MainActor
@Suite(.ownThreads) struct ScriptedUserTests {
    static let steps = 400

    func network(_ seed: UInt64) -> FakeNetwork {
        FakeNetwork(seed: seed, latencyMs: 0...0, failures: .random(rate: 0.25))
    }

    @Test("images user sees loading images errors alerts and descriptions", arguments: [1, 2] as [UInt64])
    func imagesUserSeesLoadingImagesErrorsAlertsAndDescriptions(seed: UInt64) async {
        let intent = ImagesIntent(network: network(seed), user: DemoRandom(seed: seed))
        var seen: Set<String> = []
        for _ in 0..<Self.steps {
            intent.userStep()
            seen.insert(intent.model.phase.rawValue)
            await intent.store.settle()
            seen.insert(intent.model.phase.rawValue)
            if let route = intent.model.route { seen.insert("route:" + route.screen.rawValue) }
        }
        #expect(seen.isSuperset(of: ["loading", "showing", "failed", "route:alert", "route:description"]))
        #expect(intent.model.history.count == 40)
    }

    @Test("users user logs in every way fetches and sees errors", arguments: [1, 2] as [UInt64])
    func usersUserLogsInEveryWayFetchesAndSeesErrors(seed: UInt64) async {
        let app = UsersApp(network: network(seed), user: DemoRandom(seed: seed))
        var seen: Set<String> = []
        for _ in 0..<Self.steps {
            app.userStep()
            await app.store.settle()
            let state = app.store.state
            if let method = state.auth.method { seen.insert("method:" + method) }
            if let error = state.auth.error ?? state.error { seen.insert("error:" + error.type) }
            if state.users.count > UsersApp.pageSize { seen.insert("page 2+") }
            if state.selectedUser?.bio != nil { seen.insert("profile") }
        }
        #expect(seen.isSuperset(of: ["method:password", "method:twitter", "method:facebook", "error:validation",
                                     "error:invalidCredentials", "error:network", "error:notFound", "page 2+", "profile"]))
    }

    @Test("breweries user types and sees every state", arguments: [1, 2] as [UInt64])
    func breweriesUserTypesAndSeesEveryState(seed: UInt64) async {
        let app = BreweriesApp(network: network(seed), user: DemoRandom(seed: seed))
        var seen: Set<String> = []
        var cities: Set<String> = []
        for _ in 0..<Self.steps {
            app.userStep()
            await app.store.settle()
            seen.insert(app.bloc.state.phase.rawValue)
            if app.bloc.state.validationError != nil { seen.insert("invalid") }
            cities.insert(app.bloc.state.city)
        }
        #expect(seen.isSuperset(of: ["idle", "loaded", "empty", "failed", "invalid"]))
        // Typed letter by letter: every prefix of a city shows up in the field.
        #expect(cities.isSuperset(of: ["A", "At", "Atl"]) || cities.isSuperset(of: ["P", "Po", "Por"]))
    }

    @Test("orders user browses details and cancels", arguments: [1, 2] as [UInt64])
    func ordersUserBrowsesDetailsAndCancels(seed: UInt64) async {
        let model = OrdersViewModel(network: network(seed), user: DemoRandom(seed: seed))
        var seen: Set<String> = []
        for _ in 0..<Self.steps {
            model.userStep()
            await model.store.settle()
            let state = model.store.state
            seen.insert("screen:" + state.topScreen.kind)
            if state.orders.contains(where: { $0.status == "cancelled" }) { seen.insert("cancelled") }
            if state.filter != "all" { seen.insert("filtered") }
            if state.details?.timeline.isEmpty == false { seen.insert("timeline") }
        }
        #expect(seen.isSuperset(of: ["screen:orders", "screen:orderDetails", "screen:cancelConfirmation",
                                     "cancelled", "filtered", "timeline"]))
    }

    @Test("the same seed drives the same session") func theSameSeedDrivesTheSameSession() async {
        func run() async -> String {
            let app = BreweriesApp(network: network(9), user: DemoRandom(seed: 9))
            for _ in 0..<150 {
                app.userStep()
                await app.store.settle()
            }
            return app.stateHash
        }
        let first = await run()
        #expect(await run() == first)
        let other = BreweriesApp(network: network(10), user: DemoRandom(seed: 10))
        for _ in 0..<150 {
            other.userStep()
            await other.store.settle()
        }
        #expect(other.stateHash != first)
    }

    @Test("an answer that arrives during a jump is not lost") func anAnswerThatArrivesDuringAJumpIsNotLost() async throws {
        let intent = ImagesIntent(network: FakeNetwork(seed: 4, latencyMs: 0...0, failures: .none), user: DemoRandom(seed: 4))
        intent.onAppear()
        // An inspector shows the loading state while the answer arrives: the live state takes it.
        let loading = intent.model
        intent.store.jump(to: loading)
        await intent.store.settle()
        #expect(intent.model.phase == .loading)
        intent.store.resume()
        // No spinner left behind after Resume, and no second request was needed.
        #expect(intent.model.phase == .showing)
        #expect(intent.model.requests == 1)
    }
}
