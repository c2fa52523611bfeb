/// The BLoC adapter: events in, states out. Events go through a store, so they are recorded as
/// actions and the states can be replayed and jumped to.
///
/// ```swift
/// let bloc = Bloc<CounterEvent, Int>(initialState: 0) { count, event in
///     switch event {
///     case .increment: count += 1
///     case .decrement: count -= 1
///     }
///     return .none
/// }
/// bloc.store.record(to: .file(path), app: "Counter")
/// bloc.add(.increment)
/// for await count in bloc.states { print(count) }
/// ```
@MainActor
public final class Bloc<Event, State: Sendable> {
    /// The store behind the bloc.
    public let store: Store<State, Event>
    private var continuations: [Int: AsyncStream<State>.Continuation] = [:]
    private var nextID = 0

    /// A bloc whose `mapEventToState` changes the state in place and may return an effect that
    /// adds further events.
    public init(initialState: State, mapEventToState: @escaping Reducer<State, Event>) {
        store = Store(initialState: initialState, reducer: mapEventToState)
        store.onStateChange = { [unowned self] state in
            for continuation in continuations.values { continuation.yield(state) }
        }
    }

    /// The current state (observable).
    public var state: State { store.state }

    /// Adds an event; its send site is the caller's line.
    @discardableResult
    public func add(_ event: Event, fileID: String = #fileID, line: Int = #line,
                    function: String = #function) -> StoreTask {
        store.send(event, fileID: fileID, line: line, function: function)
    }

    /// Each state from now on: one per event applied. Every call makes a new stream.
    public var states: AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .unbounded)
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.continuations[id] = nil }
        }
        return stream
    }
}
