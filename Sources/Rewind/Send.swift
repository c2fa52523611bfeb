/// Sends actions from an ``Effect`` back into the store that ran it.
///
/// ```swift
/// return .run { send in await send(.tick) }
/// ```
public struct Send<Action>: Sendable {
    let body: @MainActor @Sendable (Action) -> Void

    /// Sends `action` into the store, recorded with the effect's parent action as its cause.
    @MainActor
    public func callAsFunction(_ action: Action) {
        body(action)
    }
}
