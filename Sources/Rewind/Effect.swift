/// Work a reducer asks the store to do after it has changed the state: nothing, or async work
/// that may send further actions.
///
/// An action sent by an effect carries, as its recorded `cause`, the seq of the action whose
/// reducer returned the effect, so the inspector can show why it happened.
///
/// ```swift
/// case .refresh:
///     state.isLoading = true
///     return .run { send in
///         let items = await api.items()
///         await send(.loaded(items))
///     }
/// ```
public struct Effect<Action>: Sendable {
    enum Operation: Sendable {
        case none
        case run(@Sendable (Send<Action>) async -> Void)
    }

    let operation: Operation

    /// No further work.
    public static var none: Effect { Effect(operation: .none) }
}

extension Effect where Action: Sendable {
    /// Async work, run in a task after the reducer returns; `send` feeds actions back into the
    /// store on the main actor.
    public static func run(_ body: @escaping @Sendable (_ send: Send<Action>) async -> Void) -> Effect {
        Effect(operation: .run(body))
    }
}
