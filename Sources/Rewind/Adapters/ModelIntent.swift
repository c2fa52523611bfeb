/// The MVI adapter: an intent object that owns the store, exposes the user's intents as methods
/// and the model as read-only state. Subclass it and send actions from your intent methods.
///
/// ```swift
/// final class TimerIntent: ModelIntent<TimerModel, TimerAction> {
///     init() { super.init(model: TimerModel(), reducer: timerReducer) }
///     func didTapStart() { send(.start) }
///     func didTapReset() { send(.reset) }
/// }
/// let intent = TimerIntent()
/// intent.store.record(to: .file(path), app: "Timer")
/// Text("\(intent.model.seconds)")   // observed: the view updates
/// ```
@MainActor
open class ModelIntent<Model, Action> {
    /// The store the intent owns (for recording and time travel).
    public let store: Store<Model, Action>

    /// An intent over a new store.
    public init(model: Model, reducer: @escaping Reducer<Model, Action>, middleware: [Middleware<Model, Action>] = []) {
        store = Store(initialState: model, reducer: reducer, middleware: middleware)
    }

    /// The model, read-only: views render it, only intents change it.
    public var model: Model { store.state }

    /// Sends an action from an intent method; its send site is the intent method's line.
    @discardableResult
    public func send(_ action: Action, fileID: String = #fileID, line: Int = #line,
                     function: String = #function) -> StoreTask {
        store.send(action, fileID: fileID, line: line, function: function)
    }
}
