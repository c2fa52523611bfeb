// Integrating.md TCA begin
import ComposableArchitecture
import RewindRecorder

// Around the app's root feature, composed in `body` (TCA 1.25 deprecates invoking a reducer and
// 2.0 removes it): records each action with the state after it, and takes the inspector's
// commands through a StoreLink. AppFeature.Action has one case more, `rewind`, which the link
// sends to set the state; AppFeature handles it as a no-op.
nonisolated struct Recorded<Base: Reducer>: Reducer where Base.State: Codable & Sendable, Base.Action: Codable & Sendable {
    typealias State = Base.State
    typealias Action = Base.Action
    let link: StoreLink<State, Action>
    let base: Base

    var body: some ReducerOf<Self> {
        Reduce { state, action in
            link.willReduce(&state, action)
            return .none
        }
        base
        Reduce { state, action in
            link.didReduce(&state, action)
            return .none
        }
    }
}

@MainActor
func makeStore() -> StoreOf<Recorded<AppFeature>> {
    // No destination: REWIND_SERVER from the scheme, else the default log.
    let recorder = Recorder<AppFeature.State, AppFeature.Action>(initialState: AppFeature.State(),
                                                                 metadata: RecordingMetadata(app: "MyApp"))
    let link = StoreLink(recorder: recorder)
    let store = Store(initialState: AppFeature.State()) { Recorded(link: link, base: AppFeature()) }
    link.connect(wake: .rewind) { store.send($0) }
    return store
}
// Integrating.md TCA end
