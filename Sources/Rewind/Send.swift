import RewindLog

/// Sends actions from an ``Effect`` back into the store that ran it.
///
/// ```swift
/// return .run { send in await send(.tick) }
/// ```
public struct Send<Action>: Sendable {
    let body: @MainActor @Sendable (Action, SendSite) -> Void

    /// Sends `action` into the store, recorded with the effect's parent action as its cause and
    /// this call's line as its send site. Once the effect is cancelled, nothing is sent.
    @MainActor
    public func callAsFunction(_ action: Action, fileID: String = #fileID, line: Int = #line,
                               function: String = #function) {
        guard !Task.isCancelled else { return }
        body(action, SendSite(file: fileID, line: line, function: function))
    }
}
