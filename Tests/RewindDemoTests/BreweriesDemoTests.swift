import Rewind
import Testing
@testable import RewindDemo
import RewindTestSupport

@MainActor
@Suite(.ownThreads) struct BreweriesDemoTests {
    func makeApp(failures: FakeNetwork.Failures = .none) -> BreweriesApp {
        BreweriesApp(network: FakeNetwork(seed: 8, latencyMs: 0...0, failures: failures), user: DemoRandom(seed: 8))
    }

    func type(_ city: String, into app: BreweriesApp) {
        for length in 1...city.count { app.bloc.add(.cityChanged(String(city.prefix(length)))) }
    }

    @Test("an invalid city shows a validation error and sends no request") func anInvalidCityShowsAValidationErrorAndSendsNoRequest() {
        let app = makeApp()
        type("9th Ave", into: app)
        #expect(app.bloc.state.validationError == "A city name has only letters, spaces, hyphens and apostrophes.")
        app.bloc.add(.submitted)
        #expect(app.bloc.state.phase == .idle)
        #expect(app.bloc.state.requests == 0)
        app.bloc.add(.cleared)
        app.bloc.add(.cityChanged("x"))
        // One letter is still being typed: not judged yet, but refused on submit.
        #expect(app.bloc.state.validationError == nil)
        app.bloc.add(.submitted)
        #expect(app.bloc.state.validationError == "Enter at least 2 letters.")
        #expect(app.bloc.state.requests == 0)
    }

    @Test("a city with breweries loads them and the stream says so") func aCityWithBreweriesLoadsThemAndTheStreamSaysSo() async {
        let app = makeApp()
        var states = app.bloc.states.makeAsyncIterator()
        type("Portland", into: app)
        app.bloc.add(.submitted)
        #expect(app.bloc.state.phase == .loading)
        await app.store.settle()
        #expect(app.bloc.state.phase == .loaded)
        #expect((8...30).contains(app.bloc.state.breweries.count))
        #expect(app.bloc.state.breweries.allSatisfy { $0.address.city == "Portland" && $0.websiteURL.hasPrefix("https://") })
        #expect(app.bloc.state.recentSearches.first == BrewerySearch(city: "Portland", outcome: "results",
                                                                     count: app.bloc.state.breweries.count))
        // The bloc's stream gave one state per event: eight letters, submit, the answer.
        var phases: [BreweryState.Phase] = []
        for _ in 0..<10 { phases.append(await states.next()?.phase ?? .idle) }
        #expect(phases.suffix(2) == [.loading, .loaded])
    }

    @Test("changing the city cancels the search in flight") func changingTheCityCancelsTheSearchInFlight() async {
        let app = makeApp()
        type("Portland", into: app)
        let search = app.bloc.add(.submitted)
        #expect(app.bloc.state.phase == .loading)
        app.bloc.add(.cityChanged("Portlan"))
        #expect(search.isCancelled)
        #expect(app.bloc.state.phase == .idle)
        await app.store.settle()
        // Portland's answer never lands.
        #expect(app.bloc.state.breweries.isEmpty)
        #expect(app.bloc.state.recentSearches.isEmpty)
        // A retry supersedes the search in flight: only the last one answers.
        app.bloc.add(.cityChanged("Austin"))
        let first = app.bloc.add(.submitted)
        let retry = app.bloc.add(.retried)
        #expect(first.isCancelled && !retry.isCancelled)
        await retry.finish()
        #expect(app.bloc.state.recentSearches.map(\.city) == ["Austin"])
    }

    @Test("a city without breweries shows the empty state") func aCityWithoutBreweriesShowsTheEmptyState() async {
        let app = makeApp()
        type("Atlantis", into: app)
        app.bloc.add(.submitted)
        await app.store.settle()
        #expect(app.bloc.state.phase == .empty)
        #expect(app.bloc.state.breweries.isEmpty)
        #expect(app.bloc.state.recentSearches.first?.outcome == "empty")
    }

    @Test("a failure shows the error then retry succeeds") func aFailureShowsTheErrorThenRetrySucceeds() async {
        let app = makeApp(failures: .requests([1]))
        type("Denver", into: app)
        app.bloc.add(.submitted)
        await app.store.settle()
        #expect(app.bloc.state.phase == .failed)
        #expect(FakeNetwork.errors.contains(app.bloc.state.error ?? ""))
        #expect(app.bloc.state.breweries.isEmpty)
        app.bloc.add(.retried)
        await app.store.settle()
        #expect(app.bloc.state.phase == .loaded)
        #expect(app.bloc.state.error == nil)
        #expect(app.bloc.state.searchedCity == "Denver")
        #expect(app.bloc.state.recentSearches.map(\.outcome) == ["results", "failed"])
    }
}
