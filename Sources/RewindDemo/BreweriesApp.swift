import Rewind

/// The cancellation id of the brewery search.
enum SearchID: Hashable, Sendable { case breweries }

/// The brewery search, BLoC style: the view adds events, the bloc maps them to states.
@MainActor
public final class BreweriesApp: DemoApp {
    /// This app is `breweries`.
    public static let kind = DemoAppKind.breweries
    /// Cities the back end knows no brewery in (an empty result).
    public nonisolated static let citiesWithoutBreweries: Set<String> = ["Atlantis", "Nowhere", "Vatican City"]
    /// What the scripted user types: cities, and a few things that are not.
    static let cityScript = ["Portland", "Austin", "Denver", "Asheville", "Grand Rapids", "Atlantis", "x",
                             "Bend", "9th Ave", "Milwaukee", "Nowhere", "San Diego", "Coeur d'Alene"]

    /// The bloc behind the screen.
    public let bloc: Bloc<BreweryEvent, BreweryState>
    /// The bloc's store (recording, time travel).
    public var store: Store<BreweryState, BreweryEvent> { bloc.store }
    private var user: DemoRandom
    private var patience = Patience()
    /// What the user is typing and how much of it so far.
    private var typing: (city: String, typed: Int)?

    /// The screen over `network`, driven by a scripted user drawing from `user`.
    public init(network: FakeNetwork, user: DemoRandom) {
        self.user = user
        bloc = Bloc(initialState: BreweryState(), mapEventToState: Self.mapEventToState(network: network))
    }

    static func mapEventToState(network: FakeNetwork) -> Reducer<BreweryState, BreweryEvent> {
        { state, event in
            func search(_ city: String) -> Effect<BreweryEvent> {
                if let problem = BreweryState.validate(city) {
                    state.validationError = problem
                    return .none
                }
                state.requests += 1
                state.phase = .loading
                state.error = nil
                state.searchedCity = city
                let request = state.requests
                let endpoint = "breweries?by_city=" + city.lowercased()
                // A retry supersedes the search in flight; changing the city cancels it.
                return .run { send in
                    switch await network.request(endpoint, number: request) {
                    case .success(var random):
                        let count = citiesWithoutBreweries.contains(city) ? 0 : random.int(in: 8...30)
                        let breweries = (0..<count).map { _ in Brewery.make(in: city, &random) }
                        await send(.searchSucceeded(request: request, city: city, breweries: breweries))
                    case .failure(let message):
                        await send(.searchFailed(request: request, city: city, message: message))
                    }
                }
                .cancellable(id: SearchID.breweries, cancelInFlight: true)
            }
            switch event {
            case .cityChanged(let city):
                state.city = city
                // Judge the field only once it has something worth judging; clear stale errors.
                state.validationError = city.count >= 2 ? BreweryState.validate(city) : nil
                // The search for the old city is no longer wanted.
                if state.phase == .loading {
                    state.phase = .idle
                    return .cancel(id: SearchID.breweries)
                }
            case .submitted:
                return search(state.city)
            case .retried:
                return search(state.searchedCity ?? state.city)
            case .cleared:
                state.city = ""
                state.validationError = nil
                state.phase = .idle
                state.breweries = []
                state.error = nil
            case .searchSucceeded(let request, let city, let breweries):
                guard request == state.requests else { return .none }
                state.breweries = breweries
                state.phase = breweries.isEmpty ? .empty : .loaded
                state.recentSearches.insert(BrewerySearch(city: city, outcome: breweries.isEmpty ? "empty" : "results",
                                                          count: breweries.count), at: 0)
            case .searchFailed(let request, let city, let message):
                guard request == state.requests else { return .none }
                state.phase = .failed
                state.error = message
                state.breweries = []
                state.recentSearches.insert(BrewerySearch(city: city, outcome: "failed", count: 0), at: 0)
            }
            if state.recentSearches.count > 20 { state.recentSearches.removeLast() }
            return .none
        }
    }

    /// The scripted user's next move (see ``DemoApp/userStep()``).
    public func userStep() {
        let state = bloc.state
        if state.phase == .loading {
            if patience.runsOut() { bloc.add(.retried) }
            return
        }
        patience.reset()
        if state.phase == .failed {
            bloc.add(.retried)
            return
        }
        if let (city, typed) = typing {
            if typed < city.count {
                bloc.add(.cityChanged(String(city.prefix(typed + 1))))
                typing = (city, typed + 1)
            } else {
                typing = nil
                bloc.add(.submitted)
            }
            return
        }
        // Done with the last city (results, empty, or a validation error): start over.
        if !state.city.isEmpty {
            bloc.add(.cleared)
            return
        }
        typing = (user.pick(Self.cityScript), 0)
        userStep()
    }
}
