import Rewind

/// The users app's actions, after the ReSwift article's `AuthenticatePassword`, `FetchUser`,
/// `SetUser`.
public enum UsersAction: Codable, Sendable, Equatable {
    case authenticatePassword(username: String, password: String)
    case authenticateProvider(provider: String)
    case authenticated(request: Int, method: String, username: String, token: String)
    case authenticationFailed(UsersError)
    case logout
    case fetchUsers(page: Int)
    case fetchSucceeded(request: Int, page: Int, users: [User])
    case fetchFailed(UsersError)
    case fetchUser(id: String)
    case setUser(User)
    case errorDismissed

    /// The action's `type` in the log.
    public var type: String {
        switch self {
        case .authenticatePassword: "users/authenticate/password"
        case .authenticateProvider: "users/authenticate/provider"
        case .authenticated: "users/authenticate/succeeded"
        case .authenticationFailed: "users/authenticate/failed"
        case .logout: "users/logout"
        case .fetchUsers: "users/fetch"
        case .fetchSucceeded: "users/fetch/succeeded"
        case .fetchFailed: "users/fetch/failed"
        case .fetchUser: "users/fetchUser"
        case .setUser: "users/set"
        case .errorDismissed: "users/error/dismissed"
        }
    }

    /// Decodes the object a recording or an inspector holds; an unknown `type` fails.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ActionKey.self)
        let type: String = try c.value("type")
        switch type {
        case "users/authenticate/password":
            self = .authenticatePassword(username: try c.value("username"), password: try c.value("password"))
        case "users/authenticate/provider": self = .authenticateProvider(provider: try c.value("provider"))
        case "users/authenticate/succeeded":
            self = .authenticated(request: try c.value("request"), method: try c.value("method"),
                                  username: try c.value("username"), token: try c.value("token"))
        case "users/authenticate/failed": self = .authenticationFailed(try c.value("error"))
        case "users/logout": self = .logout
        case "users/fetch": self = .fetchUsers(page: try c.value("page"))
        case "users/fetch/succeeded":
            self = .fetchSucceeded(request: try c.value("request"), page: try c.value("page"), users: try c.value("users"))
        case "users/fetch/failed": self = .fetchFailed(try c.value("error"))
        case "users/fetchUser": self = .fetchUser(id: try c.value("id"))
        case "users/set": self = .setUser(try c.value("user"))
        case "users/error/dismissed": self = .errorDismissed
        default: throw c.unknownType(type, expected: "a users/… action")
        }
    }

    /// Encodes as one object: `type`, then the values.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ActionKey.self)
        try c.type(type)
        switch self {
        case .logout, .errorDismissed: break
        case .authenticatePassword(let username, let password):
            try c.value("username", username)
            try c.value("password", password)
        case .authenticateProvider(let provider): try c.value("provider", provider)
        case .authenticated(let request, let method, let username, let token):
            try c.value("request", request)
            try c.value("method", method)
            try c.value("username", username)
            try c.value("token", token)
        case .authenticationFailed(let error), .fetchFailed(let error): try c.value("error", error)
        case .fetchUsers(let page): try c.value("page", page)
        case .fetchSucceeded(let request, let page, let users):
            try c.value("request", request)
            try c.value("page", page)
            try c.value("users", users)
        case .fetchUser(let id): try c.value("id", id)
        case .setUser(let user): try c.value("user", user)
        }
    }
}
