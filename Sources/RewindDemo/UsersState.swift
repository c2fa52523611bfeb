import Rewind

/// A user as the users API returns one.
public struct User: Codable, Sendable, Equatable {
    /// Where the user lives.
    public struct Address: Codable, Sendable, Equatable {
        var street: String
        var city: String
        var zip: String
        var country: String
    }
    /// Where the user works.
    public struct Company: Codable, Sendable, Equatable {
        var name: String
        var catchPhrase: String
        var department: String
    }

    var id: String
    var username: String
    var name: String
    var email: String
    var phone: String
    var avatarURL: String
    var roles: [String]
    var followers: Int
    var createdAt: String
    var address: Address
    var company: Company
    /// Filled in by `users/set` (the profile request), `nil` in a list.
    public var bio: String?

    /// The user with this number, drawn from a response's generator.
    static func make(number: Int, _ random: inout DemoRandom) -> User {
        let person = DemoData.person(&random)
        let (city, _, country) = random.pick(DemoData.cities)
        let id = "u\(1000 + number)"
        return User(
            id: id, username: person.handle, name: person.name, email: "\(person.handle)@example.com",
            phone: "+1-555-\(DemoData.pad(random.int(in: 10...99)))\(DemoData.pad(random.int(in: 10...99)))",
            avatarURL: "https://avatars.example.com/\(id).png",
            roles: random.chance(0.2) ? ["member", "admin"] : ["member"], followers: random.int(in: 0...12_000),
            createdAt: DemoData.timestamp(&random),
            address: Address(street: "\(random.int(in: 1...299)) \(random.pick(DemoData.streets))", city: city,
                             zip: String(random.int(in: 10_000...99_999)), country: country),
            company: Company(name: random.pick(DemoData.companies), catchPhrase: random.pick(DemoData.catchPhrases),
                             department: random.pick(DemoData.departments)),
            bio: nil)
    }
}

/// An error the login screen or the list shows.
public struct UsersError: Codable, Sendable, Equatable {
    /// `validation`, `invalidCredentials`, `network` or `authRequired`.
    public var type: String
    var message: String
}

/// Who is logged in, and how.
public struct AuthState: Codable, Sendable, Equatable {
    /// Where the login stands.
    public enum Status: String, Codable, Sendable {
        case loggedOut, authenticating, loggedIn
    }
    var status: Status = .loggedOut
    /// `password`, `twitter` or `facebook`.
    public var method: String?
    var username: String?
    var token: String?
    var error: UsersError?
    var failedAttempts = 0
}

/// The users app's whole state (ReSwift's `AppState`): auth and the users it fetched.
public struct UsersState: Codable, Sendable, Equatable {
    var auth = AuthState()
    /// Users fetched so far, in id order.
    public var users: [User] = []
    /// The user whose profile is open.
    public var selectedUserID: String?
    var isFetching = false
    var page = 0
    var error: UsersError?
    var requests = 0

    /// Logged out, nothing fetched.
    public init() {}

    /// The open profile.
    public var selectedUser: User? { users.first { $0.id == selectedUserID } }
}
