/// Sends an action on: the signature every link of a middleware chain has.
public typealias Dispatch<Action> = @MainActor (Action) -> Void

/// A link in the store's dispatch chain, in the manner of ReSwift: given a way to read the state
/// and to dispatch from the top, it wraps the next link.
///
/// A middleware may log, transform, swallow or delay actions; what reaches the end of the chain
/// runs through the reducer and is recorded.
///
/// ```swift
/// let logging = Middleware<AppState, AppAction> { getState, dispatch in
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
    /// Builds the link: `getState` reads the store's current state, `dispatch` sends from the
    /// top of the chain, `next` is the following link.
    public typealias Make = @MainActor (
        _ getState: @escaping @MainActor () -> State,
        _ dispatch: @escaping Dispatch<Action>
    ) -> (_ next: @escaping Dispatch<Action>) -> Dispatch<Action>

    let make: Make

    /// A middleware from its curried form.
    public init(_ make: @escaping Make) {
        self.make = make
    }
}
