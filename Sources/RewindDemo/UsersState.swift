import Rewind

/// A user as the users API returns one.
public struct User: Codable, Sendable, Equatable {
    public struct Address: Codable, Sendable, Equatable {
        public var street: String
        public var city: String
        public var zip: String
        public var country: String
    }
    public struct Company: Codable, Sendable, Equatable {
        public var name: String
        public var catchPhrase: String
        public var department: String
    }

    public var id: String
    public var username: String
    public var name: String
    public var email: String
    public var phone: String
    public var avatarURL: String
    public var roles: [String]
    public var followers: Int
    public var createdAt: String
    public var address: Address
    public var company: Company
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
    public var message: String
}

/// Who is logged in, and how.
public struct AuthState: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case loggedOut, authenticating, loggedIn
    }
    public var status: Status = .loggedOut
    /// `password`, `twitter` or `facebook`.
    public var method: String?
    public var username: String?
    public var token: String?
    public var error: UsersError?
    public var failedAttempts = 0
}

/// The users app's whole state (ReSwift's `AppState`): auth and the users it fetched.
public struct UsersState: Codable, Sendable, Equatable {
    public var auth = AuthState()
    /// Users fetched so far, in id order.
    public var users: [User] = []
    /// The user whose profile is open.
    public var selectedUserID: String?
    public var isFetching = false
    public var page = 0
    public var error: UsersError?
    public var requests = 0

    /// Logged out, nothing fetched.
    public init() {}

    /// The open profile.
    public var selectedUser: User? { users.first { $0.id == selectedUserID } }
}
