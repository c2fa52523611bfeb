import Foundation
import RewindJSON
import RewindWire
import RewindSupport

/// Records a store that is not Rewind's (TCA, ReSwift, the app's own) and makes it take the
/// inspector's commands: jump, resume, pause, dispatch, replay and branch, from the browser and
/// from `rewind replay --into` and `rewind branch`, exactly as Rewind's `Store` takes them.
///
/// The store gives it three things:
///
/// - its reducer, run through ``reduce(_:_:_:)``, or, for a store whose reducers are composed
///   and never invoked (TCA), ``willReduce(_:_:)`` and ``didReduce(_:_:)`` around it: the link
///   records each action with the state it produced, and it is where a jump, a resume and a
///   replay change what the store holds;
/// - how to send an action, and one action the link may send to wake the reducer
///   (``connect(wake:send:)``): the link consumes that action (it is never recorded) to set the
///   state it holds;
/// - the reducer as a step without effects (`step`), for replays and branches. A link made
///   without one takes every command but those two, which it answers with a sentence saying so.
///
/// ```swift
/// let recorder = Recorder<AppState, AppAction>(initialState: AppState(), metadata: RecordingMetadata(app: "MyApp"))
/// let link = StoreLink(recorder: recorder) { state, action in _ = appReducer(&state, action) }
/// // in the store's reducer:  link.reduce(&state, action) { appReducer(&$0, action) } ?? .none
/// link.connect(wake: .rewind) { store.send($0) }
/// ```
///
/// While a jump shows a past state, every action the store reduces changes the live state the
/// link keeps underneath (and is recorded); a store cannot tell a tap from an effect's answer, so
/// the app shows the past state until Resume, or until the inspector dispatches an action. While
/// a replay runs, what the store is sent is held and sent again after it, in order.
///
/// `reduce` may be called from any thread the store reduces on; everything else runs on the main
/// actor, which is where the commands arrive.
public final class StoreLink<State: Codable & Sendable, Action: Decodable & Sendable>: @unchecked Sendable {
    /// The recorder each reduced action is recorded with.
    public let recorder: Recorder<State, Action>
    private let stepFunction: (@Sendable (inout State, Action) -> Void)?
    private let shared = Mutex(Shared())

    private struct Shared {
        /// How the link sends an action through the store, and the action that wakes the reducer.
        var sender: ((Action) -> Void)?
        var wakeAction: Action?
        /// What the next wake does to the state the store holds.
        var pending: Change?
        /// A wake was sent and the store's reducer has not run for it yet.
        var waking = false
        /// While a jump shows a past state: the live state, changed by every action.
        var live: State?
        var showingPast = false
        /// The next action reduced resumes first (a dispatch from the inspector).
        var resumeFirst = false
        /// While a replay runs: the state it reached, and the actions held for after it.
        var replaying = false
        var replayState: State?
        var held: [Action] = []
        /// What a `.read` wake found.
        var readBack: State?
        /// The actions between ``willReduce(_:_:)`` and ``didReduce(_:_:)``, innermost last.
        var around: [Around] = []

        /// Decides what the store's reducer runs `action` on: nothing (the link's wake), nothing
        /// yet (`hold`: an action sent while a replay runs, sent again after it), the state the
        /// store holds, or the live state a jump keeps underneath.
        mutating func begin(_ state: inout State, _ action: Action, hold: Bool) -> ReduceStep {
            if waking {
                waking = false
                let change = pending
                pending = nil
                apply(change, to: &state)
                return .consumed
            }
            if replaying && hold {
                held.append(action)
                return .held
            }
            if resumeFirst {
                resumeFirst = false
                if showingPast, let kept = live {
                    state = kept
                    live = nil
                    showingPast = false
                }
            }
            guard showingPast, let kept = live else { return .onState }
            // The past state stays shown; the action changes the live state kept here.
            live = nil
            return .onLive(kept)
        }

        /// Applies what a wake asked for to the state the store holds.
        mutating func apply(_ change: Change?, to state: inout State) {
            switch change {
            case .show(let past):
                if !showingPast {
                    live = state
                    showingPast = true
                }
                state = past
            case .resume:
                if showingPast, let kept = live { state = kept }
                live = nil
                showingPast = false
            case .set(let new):
                live = nil
                showingPast = false
                state = new
            case .read:
                readBack = showingPast ? live : state
            case nil:
                break
            }
        }
    }

    private enum Change {
        case show(State)
        case resume
        case set(State)
        case read
    }

    /// What the store's reducer runs on, decided under the lock and run off it: nothing (the
    /// link consumed the action), the state the store holds, or the live state kept here.
    private enum ReduceStep {
        case consumed
        case held
        case onState
        case onLive(State)
    }

    /// What ``willReduce(_:_:)`` decided, for ``didReduce(_:_:)``: the wake (and the state it
    /// set, which the store's reducers may not change), or an action on the state the store
    /// holds, or on the live state while a jump shows `shown`.
    private enum Around {
        case consumed(State)
        case onState(began: Int64)
        case onLive(shown: State, began: Int64)
    }

    /// A link recording with `recorder`; `step` is the store's reducer without its effects
    /// (`{ state, action in state = appReducer(action, state) }` for ReSwift), which replays and
    /// branches run.
    public init(recorder: Recorder<State, Action>, step: @escaping @Sendable (inout State, Action) -> Void) {
        self.recorder = recorder
        self.stepFunction = step
    }

    /// A link recording with `recorder`, for a store that cannot run its reducer away from the
    /// store (TCA 1.25 deprecates invoking a reducer, and 2.0 removes it): it takes jump, resume,
    /// pause and dispatch, and answers a replay or a branch with a sentence saying why not.
    public init(recorder: Recorder<State, Action>) {
        self.recorder = recorder
        self.stepFunction = nil
    }

    /// Connects the store, once it exists: `send` sends an action through it (a dispatch from
    /// the inspector, and the wake), and `wake` is an action the store's reducer hands to
    /// ``reduce(_:_:_:)`` like any other, which the link sends only to set the state the store
    /// holds (a jump, a resume, each step of a replay). The link consumes it: the store's reducer
    /// never sees it and it is not recorded. From then on the link performs the commands every
    /// ``ServerSink`` of the recorder relays.
    public func connect(wake: Action, send: @escaping (Action) -> Void) {
        shared.withLock { shared in
            shared.wakeAction = wake
            shared.sender = send
        }
        let target = LinkTarget(link: self)
        for case let sink as ServerSink in recorder.sinks {
            sink.onMainActorCommand { command in await CommandEngine(target).perform(command) }
        }
    }

    /// Performs one command (a jump, resume, pause, dispatch, replay or branch) and says how it
    /// went, as ``connect(wake:send:)`` makes the link do for each command a ``ServerSink``
    /// relays. The wire's entry point (tests use it), not the app's.
    @MainActor
    package func perform(_ command: Command) async -> AppMessage.CommandResult {
        await CommandEngine(LinkTarget(link: self)).perform(command)
    }

    /// Runs the store's reducer for `action` and records the action with the state it produced:
    /// call it from the store's reducer, with the reducer's own work as `reducer`. Returns what
    /// `reducer` returned (the effect), or `nil` when the link consumed the action (its wake, or
    /// an action held while a replay runs): the store then has nothing to run.
    ///
    /// ```swift
    /// func reduce(into state: inout State, action: Action) -> Effect<Action> {
    ///     link.reduce(&state, action) { base.reduce(into: &$0, action: action) } ?? .none
    /// }
    /// ```
    public func reduce<Effect>(_ state: inout State, _ action: Action, _ reducer: (inout State) -> Effect) -> Effect? {
        switch shared.withLock({ $0.begin(&state, action, hold: true) }) {
        case .consumed, .held:
            return nil
        case .onState:
            recorder.willReduce(action, site: nil)
            let began = MonotonicClock.nanoseconds()
            let effect = reducer(&state)
            recorder.record(action, state: state, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
            return effect
        case .onLive(var kept):
            recorder.willReduce(action, site: nil)
            let began = MonotonicClock.nanoseconds()
            let effect = reducer(&kept)
            recorder.record(action, state: kept, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
            shared.withLock { shared in
                if shared.showingPast { shared.live = kept }
            }
            return effect
        }
    }

    /// Call first among the store's reducers, before the app's own, for a store whose reducers
    /// are composed rather than invoked (TCA's `body`): with ``didReduce(_:_:)`` last, it does
    /// what ``reduce(_:_:_:)`` does around a reducer it runs. The wake sets the state here; the
    /// app's reducers then see it (handle it as a no-op) and whatever they do to the state is
    /// undone. An action sent while a replay runs is reduced at once on the replay's state and
    /// recorded (the store runs it whatever the link says, so holding it would run its effects
    /// twice); the replay goes on from the states it computes.
    ///
    /// ```swift
    /// var body: some ReducerOf<Self> {
    ///     Reduce { state, action in link.willReduce(&state, action); return .none }
    ///     base
    ///     Reduce { state, action in link.didReduce(&state, action); return .none }
    /// }
    /// ```
    public func willReduce(_ state: inout State, _ action: Action) {
        shared.withLock { shared in
            switch shared.begin(&state, action, hold: false) {
            case .consumed, .held:
                shared.around.append(.consumed(state))
            case .onState:
                recorder.willReduce(action, site: nil)
                shared.around.append(.onState(began: MonotonicClock.nanoseconds()))
            case .onLive(let kept):
                recorder.willReduce(action, site: nil)
                shared.around.append(.onLive(shown: state, began: MonotonicClock.nanoseconds()))
                state = kept
            }
        }
    }

    /// Call last among the store's reducers, after the app's own (see ``willReduce(_:_:)``):
    /// records `action` with the state the reducers produced, and puts back what a jump shows.
    /// Without its ``willReduce(_:_:)`` it records the action as it is.
    public func didReduce(_ state: inout State, _ action: Action) {
        let around = shared.withLock { $0.around.popLast() }
        switch around {
        case .consumed(let set)?:
            state = set
        case .onState(let began)?:
            recorder.record(action, state: state, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
        case .onLive(let shown, let began)?:
            recorder.record(action, state: state, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
            shared.withLock { shared in
                if shared.showingPast { shared.live = state }
            }
            state = shown
        case nil:
            recorder.record(action, state: state)
        }
    }

    // MARK: What the commands do (on the main actor)

    /// Sends the wake with `change`; the sentence that says why it did not take, or `nil`.
    @MainActor
    private func wake(_ change: Change) -> String? {
        let connection = shared.withLock { shared -> ((Action) -> Void, Action)? in
            guard let sender = shared.sender, let wakeAction = shared.wakeAction else { return nil }
            shared.pending = change
            shared.waking = true
            return (sender, wakeAction)
        }
        guard let (send, action) = connection else { return Self.notConnected }
        send(action)
        let missed = shared.withLock { shared -> Bool in
            defer {
                shared.waking = false
                shared.pending = nil
            }
            return shared.waking
        }
        return missed ? "the store did not hand the link's wake action to StoreLink.reduce (or willReduce) at once; call it from the store's reducer, and send on the main actor" : nil
    }

    fileprivate static var notConnected: String {
        "the store is not connected to its StoreLink: call link.connect(wake:send:) once the store exists"
    }

    @MainActor
    fileprivate func liveState() -> State? {
        guard wake(.read) == nil else { return nil }
        return shared.withLock { shared in
            defer { shared.readBack = nil }
            return shared.readBack
        }
    }

    @MainActor
    fileprivate func show(_ state: State) -> String? {
        wake(.show(state))
    }

    @MainActor
    fileprivate func showLive() -> String? {
        guard shared.withLock({ $0.showingPast }) else { return nil }
        return wake(.resume)
    }

    @MainActor
    fileprivate func dispatch(_ action: Action) -> String? {
        let send = shared.withLock { shared -> ((Action) -> Void)? in
            if shared.showingPast { shared.resumeFirst = true }
            return shared.sender
        }
        guard let send else { return Self.notConnected }
        send(action)
        return nil
    }

    fileprivate var isReplaying: Bool { shared.withLock { $0.replaying } }

    @MainActor
    fileprivate func beginReplay(at state: State) -> String? {
        shared.withLock { shared in
            shared.replaying = true
            shared.replayState = state
        }
        if let failure = wake(.set(state)) {
            shared.withLock { shared in
                shared.replaying = false
                shared.replayState = nil
            }
            return failure
        }
        return nil
    }

    @MainActor
    fileprivate func replayStep(_ action: Action) -> State? {
        guard var state = shared.withLock({ shared -> State? in
            defer { shared.replayState = nil }
            return shared.replayState
        }) else { return nil }
        stepFunction?(&state, action)
        shared.withLock { $0.replayState = state }
        _ = wake(.set(state))
        return state
    }

    @MainActor
    fileprivate func replaySet(_ state: State) -> State? {
        shared.withLock { $0.replayState = state }
        _ = wake(.set(state))
        return state
    }

    @MainActor
    fileprivate func endReplay() {
        let (waiting, send) = shared.withLock { shared -> ([Action], ((Action) -> Void)?) in
            shared.replaying = false
            shared.replayState = nil
            defer { shared.held = [] }
            return (shared.held, shared.sender)
        }
        guard let send else { return }
        for action in waiting { send(action) }
    }

    fileprivate func step(_ state: inout State, _ action: Action) {
        stepFunction?(&state, action)
    }

    fileprivate var stepRefusal: String? {
        stepFunction == nil
            ? "the store's StoreLink was made without a step (StoreLink(recorder:)), so it cannot run recorded actions away from the store: replays and branches need StoreLink(recorder:step:)"
            : nil
    }
}

/// What ``CommandEngine`` drives for a ``StoreLink``. It holds the link weakly: the link owns
/// the recorder, whose sinks hold this.
@MainActor
private final class LinkTarget<State: Codable & Sendable, Action: Decodable & Sendable>: CommandTarget {
    weak var link: StoreLink<State, Action>?
    /// For ``step(_:_:)``, which runs off the main actor.
    nonisolated let stepFunction: @Sendable (inout State, Action) -> Void
    nonisolated let stepRefusal: String?

    nonisolated init(link: StoreLink<State, Action>) {
        self.link = link
        self.stepFunction = { [weak link] state, action in link?.step(&state, action) }
        self.stepRefusal = link.stepRefusal
    }

    private static var gone: String { "the store's StoreLink is gone" }

    var commandRecorder: Recorder<State, Action>? { link?.recorder }
    var isReplaying: Bool { link?.isReplaying ?? false }
    func currentLiveState() -> State? { link?.liveState() }
    func show(_ state: State) -> String? { link.map { $0.show(state) } ?? Self.gone }
    func showLive() -> String? { link.map { $0.showLive() } ?? Self.gone }
    func dispatch(_ action: Action) -> String? { link.map { $0.dispatch(action) } ?? Self.gone }
    func beginReplay(at state: State) -> String? { link.map { $0.beginReplay(at: state) } ?? Self.gone }
    func replayStep(_ action: Action) -> State? { link?.replayStep(action) }
    func replaySet(_ state: State) -> State? { link?.replaySet(state) }
    func endReplay() { link?.endReplay() }
    nonisolated func step(_ state: inout State, _ action: Action) { stepFunction(&state, action) }
}
