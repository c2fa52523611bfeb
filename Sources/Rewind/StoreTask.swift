import Foundation
import RewindLog

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
/// delayed in a task; effects those effects' actions start are their own.
public final class StoreTask: Hashable, Sendable {
    private let tasks = TaskList()

    init() {}

    func add(_ task: Task<Void, Never>) {
        tasks.append(task)
    }

    /// Cancels the effects: the actions they send from now on are not applied.
    public func cancel() {
        for task in tasks.all { task.cancel() }
    }

    /// Returns when every effect has finished (at once when there were none).
    public func finish() async {
        var awaited = 0
        while true {
            let all = tasks.all
            guard awaited < all.count else { return }
            await all[awaited].value
            awaited += 1
        }
    }

    /// `true` once ``cancel()`` was called (or the store went away) and there were effects.
    public var isCancelled: Bool {
        let all = tasks.all
        return !all.isEmpty && all.allSatisfy(\.isCancelled)
    }

    /// How many effect tasks the action started.
    public var effectCount: Int { tasks.all.count }

    public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

private final class TaskList: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []

    func append(_ task: Task<Void, Never>) {
        lock.withLock { tasks.append(task) }
    }

    var all: [Task<Void, Never>] { lock.withLock { tasks } }
}
