import Foundation
import Observation

/// One state, changed only by actions sent through a reducer, on the main actor.
///
/// `state` is observable (Observation), so SwiftUI views that read it update. Attach a recorder
/// with ``record(to:app:version:meta:redacting:redactingKeys:queueCapacity:)``; the dispatch path then hands
/// each action and a copy-on-write snapshot of the state to the recorder's thread and does
/// nothing else.
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: appReducer)
/// store.record(to: .file("/tmp/app.db"), app: "MyApp")
/// store.send(.increment)
/// ```
@MainActor
public final class Store<State, Action>: Observable {
    /// The state the app is in, whatever is shown while a jump locks the store.
    var live: State
    /// The past state a ``jump(to:)-(State)`` shows; `nil` when the store shows `live`.
    var jumped: State?
    let reducer: Reducer<State, Action>
    private let registrar = ObservationRegistrar()
    /// `\.state`, made once: a key path literal into a generic class is instantiated at run time
    /// on every evaluation (about a microsecond), which the dispatch path cannot afford.
    private let stateKeyPath: KeyPath<Store, State>
    /// The head of the middleware chain; ends in ``apply(_:)``.
    private var dispatch: Dispatch<Action> = { _ in }
    /// The cause carried from an effect's ``Send`` to the end of the middleware chain.
    private var pendingCause: Int64?
    /// Receives each applied action and the state it produced (set while recording).
    var tap: StoreTap<State, Action>?
    /// The attached recorder (typed by the extensions whose constraints it needs).
    var recorderBox: AnyObject?
    /// Called with each new state (for the BLoC adapter's stream).
    var onStateChange: ((State) -> Void)?
    var isReplaying = false
    /// The running effects; cancelled when the store goes away.
    private let effects = EffectTasks()
    private var nextEffectID = 0

    /// How many actions were sent while the store was locked (by a jump or a replay) and so
    /// were neither applied nor recorded.
    public private(set) var ignoredWhileLocked = 0

    /// Makes a store.
    ///
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: changes the state for each action and returns its effect.
    ///   - middleware: the chain each sent action passes through, first element outermost.
    public init(initialState: State, reducer: @escaping Reducer<State, Action>,
                middleware: [Middleware<State, Action>] = []) {
        self.live = initialState
        self.reducer = reducer
        self.stateKeyPath = \Store.state
        // The chain holds the store weakly: a middleware that dispatches later (after a delay, from
        // a task) after the store is gone does nothing, and `getState` then gives the initial state.
        var chain: Dispatch<Action> = { [weak self] action in self?.apply(action) }
        for link in middleware.reversed() {
            chain = link.make({ [weak self] in self?.state ?? initialState }, { [weak self] action in self?.send(action) })(chain)
        }
        dispatch = chain
    }

    /// The current state: the live one, or the past one a jump shows.
    public var state: State {
        registrar.access(self, keyPath: stateKeyPath)
        return jumped ?? live
    }

    /// The live state, without registering an observation.
    @usableFromInline var liveState: State { live }

    /// `true` while a jump or a replay holds the store: sent actions are not applied.
    public var isLocked: Bool { jumped != nil || isReplaying }

    /// Sends `action` through the middleware to the reducer, then starts its effect.
    public func send(_ action: Action) {
        pendingCause = nil
        dispatch(action)
    }

    func send(_ action: Action, cause: Int64?) {
        pendingCause = cause
        dispatch(action)
    }

    /// The end of the middleware chain: reduce, hand to the recorder, run the effect.
    private func apply(_ action: Action) {
        let cause = pendingCause
        pendingCause = nil
        guard !isLocked else {
            ignoredWhileLocked += 1
            return
        }
        let (seq, effect) = reduce(action, cause: cause)
        if case .run(let body) = effect.operation {
            start(body, cause: seq)
        }
    }

    /// Runs the reducer on the live state and records the result; returns the recorded seq and
    /// the effect (which a replay drops: the actions effects sent are in the recording).
    @discardableResult
    func reduce(_ action: Action, cause: Int64?) -> (seq: Int64?, effect: Effect<Action>) {
        let at = Date()
        let start = MonotonicNanos.now()
        let effect = registrar.withMutation(of: self, keyPath: stateKeyPath) {
            reducer(&live, action)
        }
        let duration = MonotonicNanos.now() - start
        let seq = tap?.record(action, live, at, duration, cause)
        onStateChange?(live)
        return (seq, effect)
    }

    /// Replaces the live state (a replay's starting point), observably.
    func setLive(_ state: State) {
        registrar.withMutation(of: self, keyPath: stateKeyPath) { live = state }
        onStateChange?(live)
    }

    /// Shows `state` (or the live one again for `nil`), observably.
    func setJumped(_ state: State?) {
        registrar.withMutation(of: self, keyPath: stateKeyPath) { jumped = state }
    }

    private func start(_ body: @escaping @Sendable (Send<Action>) async -> Void, cause: Int64?) {
        let id = nextEffectID
        nextEffectID += 1
        let send = Send<Action> { [weak self] action in self?.send(action, cause: cause) }
        // The task holds the list weakly, so the store (which owns it) going away cancels it.
        effects.add(id, Task { [weak effects] in
            await body(send)
            effects?.remove(id)
        })
    }

    /// Waits until every effect started so far, and every effect those start, has finished.
    ///
    /// ```swift
    /// store.send(.refresh)
    /// await store.settle()
    /// #expect(store.state.items.count == 3)
    /// ```
    public func settle() async {
        while let task = effects.any {
            await task.value
        }
    }
}

/// A store's running effect tasks. It is not the store's to keep alive: when the store goes
/// away, so does this, and every effect still running is cancelled.
final class EffectTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Int: Task<Void, Never>] = [:]

    func add(_ id: Int, _ task: Task<Void, Never>) {
        lock.withLock { tasks[id] = task }
    }

    func remove(_ id: Int) {
        lock.withLock { _ = tasks.removeValue(forKey: id) }
    }

    /// One running task, if any.
    var any: Task<Void, Never>? {
        lock.withLock { tasks.values.first }
    }

    deinit {
        for task in tasks.values { task.cancel() }
    }
}
