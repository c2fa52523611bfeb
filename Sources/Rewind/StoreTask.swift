/// The effects one ``Store/send(_:fileID:line:function:)`` started: await them or cancel them,
/// as TCA's `StoreTask` allows.
///
/// ```swift
/// let task = store.send(.refresh)
/// await task.finish()          // the refresh's effects have finished
/// store.send(.search("x")).cancel()
/// ```
///
/// It covers the effects started when the action reached the reducer, including one a middleware
/// delayed in a task; effects those effects' actions start are their own. It is a plain value:
/// a `send` that starts no effect allocates nothing for it.
public struct StoreTask: Hashable, Sendable {
    let send: Int
    private weak var effects: EffectTasks?

    init(send: Int, effects: EffectTasks) {
        self.send = send
        self.effects = effects
    }

    private var running: [Task<Void, Never>] { effects?.tasks(ofSend: send) ?? [] }

    /// Cancels the effects: the actions they send from now on are not applied.
    public func cancel() {
        for task in running { task.cancel() }
    }

    /// Returns when every effect has finished (at once when there were none, or all finished).
    public func finish() async {
        while let task = running.first {
            await task.value
            // A cancelled task that already returned may still be listed for a moment.
            if running.first == task { await Task.yield() }
        }
    }

    /// `true` while the effects still running were all cancelled (and there is one).
    public var isCancelled: Bool {
        let tasks = running
        return !tasks.isEmpty && tasks.allSatisfy(\.isCancelled)
    }

    /// How many of the action's effect tasks are still running.
    public var effectCount: Int { running.count }

    public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool {
        lhs.send == rhs.send && lhs.effects === rhs.effects
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(send)
    }
}
