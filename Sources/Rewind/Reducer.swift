/// Changes the state in place for one action and says what work follows. It is a pure function
/// (`@Sendable`): replays and the verifier run it again, off the store.
///
/// ```swift
/// let counter: Reducer<Int, CounterAction> = { count, action in
///     switch action {
///     case .increment: count += 1
///     case .decrement: count -= 1
///     }
///     return .none
/// }
/// ```
public typealias Reducer<State, Action> = @Sendable (inout State, Action) -> Effect<Action>
