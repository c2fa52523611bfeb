// A stand-in for the public shapes of The Composable Architecture 1.x that the docs' TCA wiring
// uses: `Reducer` (with `body` or `reduce(into:action:)`), `Reduce`, `ReducerOf`, `Effect`
// (`.none`, `.send`, `.run`), `Send`, `Store` (`init(initialState:reducer:)`, `send`, `state`)
// and `StoreOf`. Written here from TCA's documented API so that Docs/Integrating.md's snippet
// compiles and runs on Linux; TCA itself is not a dependency and none of its code is here.
// `didChange` is the one addition (TCA's apps observe the store through Observation or Combine):
// the stand-in app prints each state with it.

public protocol Reducer<State, Action> {
    associatedtype State
    associatedtype Action
    associatedtype Body

    func reduce(into state: inout State, action: Action) -> Effect<Action>

    var body: Body { get }
}

extension Reducer where Body == Never {
    public var body: Never {
        fatalError("\(Self.self) has no body: it implements reduce(into:action:)")
    }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        body.reduce(into: &state, action: action)
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
    }

    let operation: Operation

    public static var none: Self { Self(operation: .none) }

    public static func send(_ action: Action) -> Self { Self(operation: .send(action)) }

    public static func run(operation: @escaping @Sendable (_ send: Send<Action>) async -> Void) -> Self {
        Self(operation: .run(operation))
    }
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

    public init<R: Reducer<State, Action>>(initialState: @autoclosure () -> State, reducer: () -> R) {
        state = initialState()
        let root = reducer()
        self.reducer = { state, action in root.reduce(into: &state, action: action) }
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
            switch effect.operation {
            case .none:
                break
            case .send(let action):
                buffer.append(action)
            case .run(let work):
                let send = Send<Action> { [weak self] action in self?.send(action) }
                Task { await work(send) }
            }
        }
        return StoreTask(id: sends)
    }
}

public typealias StoreOf<R: Reducer> = Store<R.State, R.Action>
