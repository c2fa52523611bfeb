// A stand-in for the public shapes of ReSwift 6 that the docs' ReSwift wiring uses: `Action`,
// `ReSwiftInit`, `Reducer`, `DispatchFunction`, `Middleware`, `Store` (`init(reducer:state:
// middleware:)`, `dispatch`, `state`, `subscribe`) and `StoreSubscriber`. Written here from
// ReSwift's documented API so that Docs/Integrating.md's snippet compiles and runs on Linux;
// ReSwift itself is not a dependency and none of its code is here. As in ReSwift, the dispatch
// function (and with it every middleware) is made lazily, on the first dispatch, unless the
// store starts without a state (its ReSwiftInit is that first dispatch).

public protocol Action {}

/// Dispatched by the store when it starts without a state.
public struct ReSwiftInit: Action {
    public init() {}
}

public typealias DispatchFunction = (Action) -> Void
public typealias Reducer<ReducerStateType> = (_ action: Action, _ state: ReducerStateType?) -> ReducerStateType
public typealias Middleware<State> = (@escaping DispatchFunction, @escaping () -> State?)
    -> (@escaping DispatchFunction) -> DispatchFunction

public protocol StoreSubscriber: AnyObject {
    associatedtype StoreSubscriberStateType
    func newState(state: StoreSubscriberStateType)
}

open class Store<State> {
    public private(set) var state: State! {
        didSet { for subscriber in subscribers { subscriber(state) } }
    }
    private let reducer: Reducer<State>
    private let middleware: [Middleware<State>]
    public lazy var dispatchFunction: DispatchFunction! = createDispatchFunction()
    private var subscribers: [(State) -> Void] = []
    private var isDispatching = false

    public required init(reducer: @escaping Reducer<State>, state: State?, middleware: [Middleware<State>] = [],
                         automaticallySkipsRepeats: Bool = true) {
        self.reducer = reducer
        self.middleware = middleware
        self.state = state
        if state == nil { dispatch(ReSwiftInit()) }
    }

    private func createDispatchFunction() -> DispatchFunction {
        middleware.reversed().reduce({ [unowned self] action in self.defaultDispatch(action) }) { next, link in
            let dispatch: DispatchFunction = { [weak self] in self?.dispatch($0) }
            let getState = { [weak self] in self?.state }
            return link(dispatch, getState)(next)
        }
    }

    private func defaultDispatch(_ action: Action) {
        guard !isDispatching else {
            fatalError("ReSwift:ConcurrentMutationError- Action has been dispatched while a previous action is being processed.")
        }
        isDispatching = true
        let newState = reducer(action, state)
        isDispatching = false
        state = newState
    }

    open func dispatch(_ action: Action) {
        dispatchFunction(action)
    }

    open func subscribe<S: StoreSubscriber>(_ subscriber: S) where S.StoreSubscriberStateType == State {
        subscribers.append { [weak subscriber] state in subscriber?.newState(state: state) }
        subscriber.newState(state: state)
    }
}
