// A stand-in for the public shapes of The Composable Architecture 1.25 that the docs' TCA wiring
// uses: `Reducer` (with `body` or `reduce(into:action:)`), `ReducerBuilder` (on `body` and on
// `Store.init`), `Reduce`, `ReducerOf`, `Effect` (`.none`, `.send`, `.run`, `.merge`), `Send`,
// `Store` (`init(initialState:reducer:)`, `send`, `state`), `StoreOf`, and the
// `ObservationStateRegistrar` that `@ObservableState` adds to a state (with its Codable shape).
// TCA 1.25 deprecates invoking a reducer (`reduce(into:action:)`), and so does this stand-in, so
// that a build here warns where a build against TCA does. Written here from TCA's documented API
// so that Docs/Integrating.md's snippet compiles and runs on Linux; TCA itself is not a
// dependency and none of its code is here. `didChange` is the one addition (TCA's apps observe
// the store through Observation or Combine): the stand-in app prints each state with it.

public protocol Reducer<State, Action> {
    associatedtype State
    associatedtype Action
    associatedtype Body

    @available(*, deprecated, message: "Don't invoke a reducer directly: send actions through the store (store.send, Effect.send), and compose reducers in 'body'")
    func reduce(into state: inout State, action: Action) -> Effect<Action>

    @ReducerBuilder<State, Action>
    var body: Body { get }
}

extension Reducer where Body == Never {
    public var body: Never {
        fatalError("\(Self.self) has no body: it implements reduce(into:action:)")
    }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
    @available(*, deprecated, message: "Don't invoke a reducer directly: send actions through the store (store.send, Effect.send), and compose reducers in 'body'")
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        Running(body).run(&state, action)
    }
}

/// How the stand-in itself runs a reducer (the store, and the builder's sequences), without
/// the warning an app's call gets: a call through this protocol's requirement is not deprecated,
/// and the witness, being deprecated itself, may call `reduce`.
private protocol Runs<State, Action> {
    associatedtype State
    associatedtype Action
    func run(_ state: inout State, _ action: Action) -> Effect<Action>
}

private struct Running<R: Reducer>: Runs {
    let reducer: R
    init(_ reducer: R) { self.reducer = reducer }

    @available(*, deprecated)
    func run(_ state: inout R.State, _ action: R.Action) -> Effect<R.Action> {
        reducer.reduce(into: &state, action: action)
    }
}

extension Reducer {
    fileprivate func _run(_ state: inout State, _ action: Action) -> Effect<Action> {
        let running: any Runs<State, Action> = Running(self)
        return running.run(&state, action)
    }
}

/// Composes the reducers of a `body` (or of the closure `Store.init` takes): each runs in turn on
/// the same state, and their effects are merged.
@resultBuilder
public enum ReducerBuilder<State, Action> {
    public static func buildExpression<R: Reducer>(_ reducer: R) -> R where R.State == State, R.Action == Action {
        reducer
    }

    public static func buildPartialBlock<R: Reducer>(first: R) -> R where R.State == State, R.Action == Action {
        first
    }

    public static func buildPartialBlock<R0: Reducer, R1: Reducer>(accumulated: R0, next: R1) -> _Sequence<R0, R1>
    where R0.State == State, R0.Action == Action, R1.State == State, R1.Action == Action {
        _Sequence(first: accumulated, second: next)
    }

    /// Two reducers run one after the other.
    public struct _Sequence<R0: Reducer, R1: Reducer>: Reducer where R0.State == R1.State, R0.Action == R1.Action {
        public typealias Body = Never
        let first: R0
        let second: R1

        public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
            let one = first._run(&state, action)
            let two = second._run(&state, action)
            return .merge(one, two)
        }
    }
}

public typealias ReducerOf<R: Reducer> = Reducer<R.State, R.Action>

/// A reducer from a closure.
public struct Reduce<State, Action>: Reducer {
    public typealias Body = Never
    private let run: (inout State, Action) -> Effect<Action>

    public init(_ reduce: @escaping (_ state: inout State, _ action: Action) -> Effect<Action>) {
        run = reduce
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        run(&state, action)
    }
}

/// What a reducer asks for after it ran.
public struct Effect<Action> {
    enum Operation {
        case none
        case send(Action)
        case run(@Sendable (Send<Action>) async -> Void)
        indirect case merge([Operation])
    }

    let operation: Operation

    public static var none: Self { Self(operation: .none) }

    public static func send(_ action: Action) -> Self { Self(operation: .send(action)) }

    public static func run(operation: @escaping @Sendable (_ send: Send<Action>) async -> Void) -> Self {
        Self(operation: .run(operation))
    }

    public static func merge(_ effects: Self...) -> Self {
        let work = effects.map(\.operation).filter { if case .none = $0 { false } else { true } }
        switch work.count {
        case 0: return .none
        case 1: return Self(operation: work[0])
        default: return Self(operation: .merge(work))
        }
    }
}

/// What `@ObservableState` adds to a state as `_$observationRegistrar`, with TCA's Codable
/// shape: it encodes nothing and decodes from anything. (The macro also stores each property
/// of the state as `_name`, behind a computed `name`.)
public struct ObservationStateRegistrar: Sendable, Equatable, Hashable, Codable {
    public init() {}
    public init(from decoder: any Decoder) throws { self.init() }
    public func encode(to encoder: any Encoder) throws {}
}

/// Sends an effect's actions back into the store, on the main actor.
@MainActor
public struct Send<Action>: Sendable {
    let send: @MainActor @Sendable (Action) -> Void

    public func callAsFunction(_ action: Action) {
        send(action)
    }
}

/// What `send` started.
public struct StoreTask: Hashable, Sendable {
    let id: Int
}

/// The runtime: one state, changed by the reducer on the main actor. An action sent while one is
/// being reduced waits until it is done, as in TCA.
@MainActor
public final class Store<State, Action> {
    public private(set) var state: State
    private let reducer: (inout State, Action) -> Effect<Action>
    private var isSending = false
    private var buffer: [Action] = []
    private var sends = 0
    /// Not TCA's: the stand-in app's way to see each new state.
    public var didChange: ((State) -> Void)?

    public init<R: Reducer<State, Action>>(initialState: @autoclosure () -> State,
                                           @ReducerBuilder<State, Action> reducer: () -> R) {
        state = initialState()
        let root = reducer()
        self.reducer = { state, action in root._run(&state, action) }
    }

    @discardableResult
    public func send(_ action: Action) -> StoreTask {
        sends += 1
        buffer.append(action)
        guard !isSending else { return StoreTask(id: sends) }
        isSending = true
        defer { isSending = false }
        while !buffer.isEmpty {
            let next = buffer.removeFirst()
            let effect = reducer(&state, next)
            didChange?(state)
            start(effect.operation)
        }
        return StoreTask(id: sends)
    }

    private func start(_ operation: Effect<Action>.Operation) {
        switch operation {
        case .none:
            break
        case .send(let action):
            buffer.append(action)
        case .run(let work):
            let send = Send<Action> { [weak self] action in self?.send(action) }
            Task { await work(send) }
        case .merge(let operations):
            for operation in operations { start(operation) }
        }
    }
}

public typealias StoreOf<R: Reducer> = Store<R.State, R.Action>
