// Integrating.md TCA begin
import ComposableArchitecture
import RewindRecorder

// Around the app's root feature: records each action with the state after it, and takes the
// inspector's commands through a StoreLink. AppFeature.Action has one case more, `rewind`,
// which the link sends to set the state; AppFeature's reducer never sees it.
struct Recorded<Base: Reducer>: Reducer where Base.State: Codable & Sendable, Base.Action: Codable & Sendable {
    let base: Base
    let link: StoreLink<Base.State, Base.Action>

    func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
        link.reduce(&state, action) { base.reduce(into: &$0, action: action) } ?? .none
    }
}

@MainActor
func makeStore() -> StoreOf<Recorded<AppFeature>> {
    // No destination: REWIND_SERVER from the scheme, else the default log.
    let recorder = Recorder<AppFeature.State, AppFeature.Action>(initialState: AppFeature.State(),
                                                                 metadata: RecordingMetadata(app: "MyApp"))
    let link = StoreLink(recorder: recorder) { state, action in _ = AppFeature().reduce(into: &state, action: action) }
    let store = Store(initialState: AppFeature.State()) { Recorded(base: AppFeature(), link: link) }
    link.connect(wake: .rewind) { store.send($0) }
    return store
}
// Integrating.md TCA end
