// Integrating.md ReSwift begin
import ReSwift
import RewindRecorder

// AppAction (an enum, Codable) has one case more, `rewind`, which the link sends to set the
// state; appReducer never sees it.
func makeStore() -> Store<AppState> {
    // No destination: REWIND_SERVER from the scheme, else the default log.
    let recorder = Recorder<AppState, AppAction>(initialState: AppState(), metadata: RecordingMetadata(app: "MyApp"))
    let link = StoreLink(recorder: recorder) { state, action in state = appReducer(action: action, state: state) }

    // The reducer wrapper: the app's actions go through the link, which records them and takes
    // the inspector's jumps and replays; ReSwift's own (ReSwiftInit) go straight to the reducer.
    let recorded: Reducer<AppState> = { action, state in
        guard let action = action as? AppAction else { return appReducer(action: action, state: state) }
        var state = state ?? AppState()
        _ = link.reduce(&state, action) { $0 = appReducer(action: action, state: $0) }
        return state
    }
    let store = Store<AppState>(reducer: recorded, state: AppState())
    // The store's dispatch, for the inspector's dispatch and the wake: connected here, not in a
    // middleware, which ReSwift builds only on the first dispatch.
    link.connect(wake: AppAction.rewind) { [weak store] in store?.dispatch($0) }
    return store
}
// Integrating.md ReSwift end
