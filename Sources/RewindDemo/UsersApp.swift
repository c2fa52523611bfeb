import Rewind

/// The users app, ReSwift style: one store, a reducer, and middleware that checks what the views
/// dispatch before it reaches the reducer. Requests are effects, so each answer is recorded with
/// the action that asked as its cause.
@MainActor
public final class UsersApp: DemoApp {
    /// This app is `users`.
    public static let kind = DemoAppKind.users
    /// The password the fake back end accepts for every user.
    public nonisolated static let password = "correct-horse"

    /// The session token is redacted where the state keeps it (`/auth/token`, by pointer; the
    /// action that brings it is redacted with it), and the password by key wherever it appears
    /// (it is only ever in `users/authenticate/password` actions): neither reaches the log.
    public nonisolated static var redacted: (pointers: [String], keys: [String]) { (["/auth/token"], ["password"]) }
    nonisolated static let pageSize = 24
    nonisolated static let lastPage = 4

    /// The one store (ReSwift's `store`).
    public let store: Store<UsersState, UsersAction>
    private var user: DemoRandom
    private var patience = Patience()

    /// The app over `network`, driven by a scripted user drawing from `user`.
    public init(network: FakeNetwork, user: DemoRandom) {
        self.user = user
        store = Store(initialState: UsersState(), reducer: Self.reducer(network: network),
                      middleware: [Self.validation, Self.authGuard])
    }

    /// Refuses a password login with an empty username or a short password before any request
    /// is made: the form's error, dispatched instead.
    static let validation = Middleware<UsersState, UsersAction> { dispatch, _ in
        { next in
            { action in
                guard case .authenticatePassword(let username, let password) = action else { return next(action) }
                if username.isEmpty {
                    dispatch(.authenticationFailed(UsersError(type: "validation", message: "Enter your username.")))
                } else if password.count < 6 {
                    dispatch(.authenticationFailed(UsersError(type: "validation", message: "The password has at least 6 characters.")))
                } else {
                    next(action)
                }
            }
        }
    }

    /// Turns a fetch while logged out into the error the list shows.
    static let authGuard = Middleware<UsersState, UsersAction> { dispatch, getState in
        { next in
            { action in
                switch action {
                case .fetchUsers, .fetchUser:
                    guard getState().auth.status == .loggedIn else {
                        return dispatch(.fetchFailed(UsersError(type: "authRequired", message: "Log in to see users.")))
                    }
                default: break
                }
                next(action)
            }
        }
    }

    static func reducer(network: FakeNetwork) -> Reducer<UsersState, UsersAction> {
        { state, action in
            switch action {
            case .authenticatePassword(let username, let password):
                state.requests += 1
                state.auth.status = .authenticating
                state.auth.error = nil
                let request = state.requests
                return .run { send in
                    switch await network.request("auth/password", number: request) {
                    case .success(var random) where password == UsersApp.password:
                        await send(.authenticated(request: request, method: "password", username: username,
                                                  token: "tok_" + String(random.next(), radix: 36)))
                    case .success:
                        await send(.authenticationFailed(UsersError(type: "invalidCredentials", message: "Wrong username or password.")))
                    case .failure(let message):
                        await send(.authenticationFailed(UsersError(type: "network", message: message)))
                    }
                }
            case .authenticateProvider(let provider):
                state.requests += 1
                state.auth.status = .authenticating
                state.auth.error = nil
                let request = state.requests
                return .run { send in
                    switch await network.request("auth/" + provider, number: request) {
                    case .success(var random):
                        let person = DemoData.person(&random)
                        await send(.authenticated(request: request, method: provider, username: person.handle,
                                                  token: "\(provider)_" + String(random.next(), radix: 36)))
                    case .failure(let message):
                        await send(.authenticationFailed(UsersError(type: "network", message: message)))
                    }
                }
            case .authenticated(_, let method, let username, let token):
                state.auth = AuthState(status: .loggedIn, method: method, username: username, token: token,
                                       error: nil, failedAttempts: state.auth.failedAttempts)
            case .authenticationFailed(let error):
                state.auth.status = .loggedOut
                state.auth.error = error
                state.auth.failedAttempts += 1
            case .logout:
                state = UsersState()
            case .fetchUsers(let page):
                state.requests += 1
                state.isFetching = true
                state.error = nil
                let request = state.requests
                return .run { send in
                    switch await network.request("users?page=\(page)", number: request) {
                    case .success(var random):
                        let users = (0..<pageSize).map { User.make(number: (page - 1) * pageSize + $0, &random) }
                        await send(.fetchSucceeded(request: request, page: page, users: users))
                    case .failure(let message):
                        await send(.fetchFailed(UsersError(type: "network", message: message)))
                    }
                }
            case .fetchSucceeded(_, let page, let users):
                state.isFetching = false
                state.page = page
                state.users = page == 1 ? users : state.users.filter { $0.id < (users.first?.id ?? "") } + users
            case .fetchFailed(let error):
                state.isFetching = false
                state.error = error
            case .fetchUser(let id):
                state.requests += 1
                state.selectedUserID = id
                let request = state.requests
                let known = state.users.first { $0.id == id }
                return .run { send in
                    switch await network.request("users/" + id, number: request) {
                    case .success(var random):
                        guard var user = known else {
                            await send(.fetchFailed(UsersError(type: "notFound", message: "HTTP 404: there is no user \(id).")))
                            return
                        }
                        user.followers += random.int(in: 0...25)
                        user.bio = "\(user.company.department) at \(user.company.name). \(random.pick(DemoData.catchPhrases))."
                        await send(.setUser(user))
                    case .failure(let message):
                        await send(.fetchFailed(UsersError(type: "network", message: message)))
                    }
                }
            case .setUser(let user):
                // The seed's SetUser: store the fetched user in place.
                if let index = state.users.firstIndex(where: { $0.id == user.id }) {
                    state.users[index] = user
                } else {
                    state.users.append(user)
                }
            case .errorDismissed:
                state.error = nil
                state.auth.error = nil
            }
            return .none
        }
    }

    /// The scripted user's next move (see ``DemoApp/userStep()``).
    public func userStep() {
        let state = store.state
        if state.auth.status == .authenticating || state.isFetching {
            // The user waits on the spinner, then tries again.
            if patience.runsOut() {
                if state.isFetching {
                    store.send(.fetchUsers(page: max(1, state.page)))
                } else {
                    store.send(.authenticateProvider(provider: "twitter"))
                }
            }
            return
        }
        patience.reset()
        if state.error != nil || state.auth.error != nil {
            store.send(.errorDismissed)
            return
        }
        switch state.auth.status {
        case .authenticating:
            return   // handled above
        case .loggedOut:
            let roll = user.int(in: 0...99)
            if roll < 10 {
                store.send(.authenticatePassword(username: "", password: Self.password))
            } else if roll < 25 {
                store.send(.authenticatePassword(username: DemoData.person(&user).handle, password: "letmein!"))
            } else if roll < 65 {
                store.send(.authenticatePassword(username: DemoData.person(&user).handle, password: Self.password))
            } else {
                store.send(.authenticateProvider(provider: user.chance(0.5) ? "twitter" : "facebook"))
            }
        case .loggedIn:
            if state.users.isEmpty {
                store.send(.fetchUsers(page: 1))
                return
            }
            let roll = user.int(in: 0...99)
            if roll < 55 {
                store.send(.fetchUser(id: user.pick(state.users).id))
            } else if roll < 80 {
                store.send(.fetchUsers(page: state.page >= Self.lastPage ? 1 : state.page + 1))
            } else if roll < 90 {
                store.send(.fetchUser(id: "u9999"))   // a stale link: the back end knows no such user
            } else {
                store.send(.logout)
            }
        }
    }
}
