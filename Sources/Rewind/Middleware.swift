/// Sends an action on: the signature every link of a middleware chain has (ReSwift's name for
/// it; `Dispatch` would hide the system module of that name).
public typealias DispatchFunction<Action> = @MainActor (Action) -> Void

/// A link in the store's dispatch chain, in the manner of ReSwift (and in its argument order):
/// given a way to dispatch from the top and to read the state, it wraps the next link.
///
/// A middleware may log, transform, swallow or delay actions; what reaches the end of the chain
/// runs through the reducer and is recorded.
///
/// ```swift
/// let logging = Middleware<AppState, AppAction> { dispatch, getState in
///     { next in
///         { action in
///             print("→", action)
///             next(action)
///         }
///     }
/// }
/// let store = Store(initialState: AppState(), reducer: appReducer, middleware: [logging])
/// ```
public struct Middleware<State, Action> {
    /// Builds the link: `dispatch` sends from the top of the chain, `getState` reads the store's
    /// current state, `next` is the following link.
    public typealias Make = @MainActor (
        _ dispatch: @escaping DispatchFunction<Action>,
        _ getState: @escaping @MainActor () -> State
    ) -> (_ next: @escaping DispatchFunction<Action>) -> DispatchFunction<Action>

    let make: Make

    /// A middleware from its curried form.
    public init(_ make: @escaping Make) {
        self.make = make
    }
}
