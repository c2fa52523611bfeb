import Foundation
import RewindLog
import Observation
import RewindSupport

/// One state, changed only by actions sent through a reducer, on the main actor.
///
/// `state` is observable (Observation), so SwiftUI views that read it update. Attach a recorder
/// with ``record(to:app:version:meta:redacting:redactingKeys:queueCapacity:commands:)``; the dispatch path then hands
/// each action and a copy-on-write snapshot of the state to the recorder's thread and does
/// nothing else.
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: appReducer)
/// store.record(to: .file("/tmp/app.db"), app: "MyApp")
/// store.send(.increment)
/// ```
@MainActor @dynamicMemberLookup
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
    /// The head of the middleware chain; ends in ``apply(_:)``. `nil` without middleware: then
    /// `send` applies at once, handing its context on directly instead of as a task-local.
    private var dispatch: DispatchFunction<Action>?
    /// What was sent while a replay held the store, applied after it.
    private var waitingForReplay: [(Action, DispatchContext)] = []
    /// Receives each applied action and the state it produced (set while recording).
    var tap: StoreTap<State, Action>?
    /// The attached recorder (typed by the extensions whose constraints it needs).
    var recorderBox: AnyObject?
    /// Called with each new state (for the BLoC adapter's stream).
    var onStateChange: ((State) -> Void)?
    var isReplaying = false
    /// The recording's tap, set aside while a replay runs (the replay records its own session).
    var tapBeforeReplay: StoreTap<State, Action>?
    /// The running effects; cancelled when the store goes away.
    private let effects = EffectTasks()
    private var nextEffectID = 0
    /// Numbers each `send`, so its ``StoreTask`` finds the tasks it started.
    private var nextSendID = 0

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
        guard !middleware.isEmpty else { return }
        // The chain holds the store weakly: a middleware that dispatches later (after a delay, from
        // a task) after the store is gone does nothing, and `getState` then gives the initial state.
        var chain: DispatchFunction<Action> = { [weak self] action in self?.apply(action, DispatchContext.current ?? .background) }
        for link in middleware.reversed() {
            chain = link.make({ [weak self] action in self?.sendFromMiddleware(action) },
                              { [weak self] in self?.state ?? initialState })(chain)
        }
        dispatch = chain
    }

    /// The current state: the live one, or the past one a jump shows.
    public var state: State {
        registrar.access(self, keyPath: stateKeyPath)
        return jumped ?? live
    }

    /// Reads a member of the current state: `store.items` for `store.state.items` (observed,
    /// like ``state``).
    public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
        state[keyPath: keyPath]
    }

    /// The live state, without registering an observation.
    @usableFromInline var liveState: State { live }

    /// `true` while a jump shows a past state or a replay holds the store.
    public var isLocked: Bool { jumped != nil || isReplaying }

    /// `true` while a jump shows a past state (the live state goes on changing underneath).
    public var isJumped: Bool { jumped != nil }

    /// Sends `action` through the middleware to the reducer, then starts its effect.
    ///
    /// While a jump shows a past state, the store first resumes (shows the live state), then
    /// applies the action: the user acts on what is live. While a replay runs, the action waits
    /// and is applied after it. The send site (`#fileID`, `#line`, `#function`) is recorded with
    /// the action.
    ///
    /// - Returns: the action's effects, to await (``StoreTask/finish()``) or cancel.
    @discardableResult
    public func send(_ action: Action, fileID: String = #fileID, line: Int = #line,
                     function: String = #function) -> StoreTask {
        nextSendID &+= 1
        let send = nextSendID
        dispatch(action, DispatchContext(cause: nil, site: SendSite(file: fileID, line: line, function: function),
                                         fromUser: true, send: send))
        return StoreTask(send: send, effects: effects)
    }

    /// Sends an effect's action: it never resumes a jump, and carries its parent as its cause.
    func sendFromEffect(_ action: Action, cause: Int64?, site: SendSite) {
        dispatch(action, DispatchContext(cause: cause, site: site, fromUser: false, send: nil))
    }

    /// Hands `action` to the middleware chain with `context` as the task-local value the end of
    /// the chain reads, or applies it at once when there is no middleware.
    private func dispatch(_ action: Action, _ context: DispatchContext) {
        guard let dispatch else { return apply(action, context) }
        DispatchContext.$current.withValue(context) { dispatch(action) }
    }

    /// Sends from a middleware's `dispatch`: the action that led to it (the one being
    /// dispatched, or the one whose task the middleware started) lends it its context.
    private func sendFromMiddleware(_ action: Action) {
        dispatch?(action)
    }

    /// The end of the middleware chain: reduce, hand to the recorder, run the effect. The
    /// context is the one of the `send` that led here, even when a middleware delayed `next` in
    /// a task (task-local values follow the task).
    private func apply(_ action: Action, _ context: DispatchContext) {
        if isReplaying {
            waitingForReplay.append((action, context))
            return
        }
        if context.fromUser, jumped != nil {
            setJumped(nil)
        }
        let (seq, effect) = reduce(action, cause: context.cause, site: context.site)
        run(effect, cause: seq, send: context.send)
    }

    /// Applies what was sent while a replay held the store, in the order it was sent.
    func applyWaitingForReplay() {
        while !isReplaying, !waitingForReplay.isEmpty {
            let (action, context) = waitingForReplay.removeFirst()
            apply(action, context)
        }
    }

    /// Runs the reducer on the live state and records the result; returns the recorded seq and
    /// the effect (which a replay drops: the actions effects sent are in the recording).
    @discardableResult
    func reduce(_ action: Action, cause: Int64?, site: SendSite? = nil) -> (seq: Int64?, effect: Effect<Action>) {
        tap?.willReduce(action, site)
        let at = Date()
        let start = MonotonicClock.nanoseconds()
        let effect: Effect<Action>
        if jumped == nil {
            effect = registrar.withMutation(of: self, keyPath: stateKeyPath) { reducer(&live, action) }
        } else {
            // The view shows the jumped state, which this does not change.
            effect = reducer(&live, action)
        }
        let duration = MonotonicClock.nanoseconds() - start
        let seq = tap?.record(action, live, at, duration, cause, site)
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

    /// Starts what `effect` asks for; `cause` is the seq of the action whose reducer returned it.
    private func run(_ effect: Effect<Action>, cause: Int64?, send sendID: Int?) {
        switch effect.operation {
        case .none:
            return
        case .send(let action, let site):
            sendFromEffect(action, cause: cause, site: site)
        case .merge(let effects):
            for effect in effects { run(effect, cause: cause, send: sendID) }
        case .cancel(let id):
            effects.cancel(id)
        case .run(let work):
            if work.cancelInFlight, let id = work.id { effects.cancel(id) }
            let number = nextEffectID
            nextEffectID += 1
            let send = Send<Action> { [weak self] action, site in
                self?.sendFromEffect(action, cause: cause, site: site)
            }
            let body = work.body
            // The task holds the list weakly, so the store (which owns it) going away cancels it.
            let task = Task { [weak effects] in
                await body(send)
                effects?.remove(number)
            }
            effects.add(number, task, id: work.id, send: sendID)
        }
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
final class EffectTasks: Sendable {
    private struct Running {
        var tasks: [Int: Task<Void, Never>] = [:]
        /// The running tasks marked with each cancellation id.
        var marked: [EffectID: Set<Int>] = [:]
        var idOf: [Int: EffectID] = [:]
        /// The running tasks each `send` started, for its ``StoreTask``.
        var bySend: [Int: [Int]] = [:]
        var sendOf: [Int: Int] = [:]
    }

    private let running = Mutex(Running())

    func add(_ number: Int, _ task: Task<Void, Never>, id: EffectID?, send: Int?) {
        running.withLock { running in
            running.tasks[number] = task
            if let send {
                running.bySend[send, default: []].append(number)
                running.sendOf[number] = send
            }
            if let id {
                running.marked[id, default: []].insert(number)
                running.idOf[number] = id
            }
        }
    }

    func remove(_ number: Int) {
        running.withLock { running in
            running.tasks[number] = nil
            if let send = running.sendOf.removeValue(forKey: number) {
                running.bySend[send]?.removeAll { $0 == number }
                if running.bySend[send]?.isEmpty == true { running.bySend[send] = nil }
            }
            if let id = running.idOf.removeValue(forKey: number) {
                running.marked[id]?.remove(number)
                if running.marked[id]?.isEmpty == true { running.marked[id] = nil }
            }
        }
    }

    /// Cancels every running task marked with `id`.
    func cancel(_ id: EffectID) {
        let cancelled = running.withLock { running -> [Task<Void, Never>] in
            guard let numbers = running.marked.removeValue(forKey: id) else { return [] }
            for number in numbers { running.idOf[number] = nil }
            return numbers.compactMap { running.tasks[$0] }
        }
        for task in cancelled { task.cancel() }
    }

    /// The running tasks `send` started.
    func tasks(ofSend send: Int) -> [Task<Void, Never>] {
        running.withLock { running in (running.bySend[send] ?? []).compactMap { running.tasks[$0] } }
    }

    /// One running task, if any.
    var any: Task<Void, Never>? {
        running.withLock { $0.tasks.values.first }
    }

    deinit {
        for task in running.withLock({ $0.tasks.values }) { task.cancel() }
    }
}

/// What a `send` hands down the middleware chain to the reducer, as a task-local value so that a
/// middleware that delays `next` in a task still delivers it with the right cause and site.
struct DispatchContext: Sendable {
    /// The seq of the action whose effect sent this one.
    var cause: Int64?
    /// Where it was sent.
    var site: SendSite?
    /// `true` for the app's own `send` (a user's action): it resumes a jump.
    var fromUser: Bool
    /// The number of the app's `send` whose ``StoreTask`` collects the effects it starts.
    var send: Int?

    /// What an action dispatched outside any `send` gets (a middleware's `DispatchQueue` timer).
    static let background = DispatchContext(cause: nil, site: nil, fromUser: false, send: nil)

    @TaskLocal static var current: DispatchContext?
}
