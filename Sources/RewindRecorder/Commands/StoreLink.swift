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
/// - its reducer, run through ``reduce(_:_:_:)``: the link records each action with the state
///   it produced, and it is where a jump, a resume and a replay change what the store holds;
/// - how to send an action, and one action the link may send to wake the reducer
///   (``connect(wake:send:)``): the link consumes that action (the store's reducer never sees
///   it, and it is never recorded) to set the state it holds;
/// - the reducer as a step without effects (`step`), for replays and branches.
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
    private let stepFunction: @Sendable (inout State, Action) -> Void
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
        case onState
        case onLive(State)
    }

    /// A link recording with `recorder`; `step` is the store's reducer without its effects
    /// (`{ state, action in _ = AppFeature().reduce(into: &state, action: action) }` for TCA,
    /// `{ state, action in state = appReducer(action, state) }` for ReSwift).
    public init(recorder: Recorder<State, Action>, step: @escaping @Sendable (inout State, Action) -> Void) {
        self.recorder = recorder
        self.stepFunction = step
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
        let step = shared.withLock { shared -> ReduceStep in
            if shared.waking {
                shared.waking = false
                let change = shared.pending
                shared.pending = nil
                shared.apply(change, to: &state)
                return .consumed
            }
            if shared.replaying {
                shared.held.append(action)
                return .consumed
            }
            if shared.resumeFirst {
                shared.resumeFirst = false
                if shared.showingPast, let kept = shared.live {
                    state = kept
                    shared.live = nil
                    shared.showingPast = false
                }
            }
            guard shared.showingPast, let kept = shared.live else { return .onState }
            // The past state stays shown; the action changes the live state kept here.
            shared.live = nil
            return .onLive(kept)
        }
        switch step {
        case .consumed:
            return nil
        case .onState:
            let began = MonotonicClock.nanoseconds()
            let effect = reducer(&state)
            recorder.record(action, state: state, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
            return effect
        case .onLive(var kept):
            let began = MonotonicClock.nanoseconds()
            let effect = reducer(&kept)
            recorder.record(action, state: kept, at: Date(), durationNs: MonotonicClock.nanoseconds() - began)
            shared.withLock { shared in
                if shared.showingPast { shared.live = kept }
            }
            return effect
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
        return missed ? "the store did not hand the link's wake action to StoreLink.reduce at once; call link.reduce(…) from the store's reducer, and send on the main actor" : nil
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
        stepFunction(&state, action)
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
        stepFunction(&state, action)
    }
}

/// What ``CommandEngine`` drives for a ``StoreLink``. It holds the link weakly: the link owns
/// the recorder, whose sinks hold this.
@MainActor
private final class LinkTarget<State: Codable & Sendable, Action: Decodable & Sendable>: CommandTarget {
    weak var link: StoreLink<State, Action>?
    /// For ``step(_:_:)``, which runs off the main actor.
    nonisolated let stepFunction: @Sendable (inout State, Action) -> Void

    nonisolated init(link: StoreLink<State, Action>) {
        self.link = link
        self.stepFunction = { [weak link] state, action in link?.step(&state, action) }
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
