import Foundation
import Rewind
import RewindLog
import Testing
@testable import RewindDemo
import RewindTestSupport

@MainActor
@Suite(.ownThreads) struct UsersDemoTests {
    func makeApp(failures: FakeNetwork.Failures = .none) -> UsersApp {
        UsersApp(network: FakeNetwork(seed: 5, latencyMs: 0...0, failures: failures), user: DemoRandom(seed: 5))
    }

    func logIn(_ app: UsersApp) async {
        app.store.send(.authenticatePassword(username: "nora.larsen", password: UsersApp.password))
        await app.store.settle()
    }

    @Test("the recording redacts the password by key and the token by pointer") func theRecordingRedactsThePasswordByKeyAndTheTokenByPointer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-users-redaction-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("users.db").path
        let app = makeApp()
        app.startRecording(to: .file(db), seed: 5)
        await logIn(app)
        let token = try #require(app.store.state.auth.token)
        app.store.send(.logout)
        app.store.send(.authenticateProvider(provider: "twitter"))
        await app.store.settle()
        let providerToken = try #require(app.store.state.auth.token)
        let hash = app.stateHash
        app.store.recorder?.flush()

        let reader = try LogReader(path: db)
        let session = try reader.session(named: "latest")
        #expect(session.meta["redacted"] == ["/auth/token"])
        #expect(session.meta["redactedKeys"] == ["password"])
        let events = try reader.events(session: session.id)
        let password = try #require(events.first { $0.actionType == "users/authenticate/password" })
        #expect(password.action == ["type": "users/authenticate/password", "username": "nora.larsen", "password": "<redacted>"])
        let succeeded = events.filter { $0.actionType == "users/authenticate/succeeded" }
        #expect(succeeded.count == 2)
        #expect(succeeded.allSatisfy { $0.action["token"] == "<redacted>" })
        let recording = try Recording.load(fromLog: db, session: session.uuid)
        for event in succeeded { #expect(try recording.state(at: event.seq)?["auth"]?["token"] == "<redacted>") }
        // The hash the app reports (its state log's) is the recorded one, redaction and all.
        #expect(String(format: "%016llx", events.last!.hash) == hash)
        app.stopRecording()
        // Not a byte of either secret in the log file or its write-ahead log.
        for file in [db, db + "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            for secret in [UsersApp.password, token, providerToken] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file)")
            }
        }
    }

    @Test("the middleware refuses an empty username before any request") func theMiddlewareRefusesAnEmptyUsernameBeforeAnyRequest() async {
        let app = makeApp()
        app.store.send(.authenticatePassword(username: "", password: UsersApp.password))
        #expect(app.store.state.auth.error == UsersError(type: "validation", message: "Enter your username."))
        #expect(app.store.state.auth.status == .loggedOut)
        #expect(app.store.state.requests == 0)
        app.store.send(.authenticatePassword(username: "ava", password: "abc"))
        #expect(app.store.state.auth.error?.message == "The password has at least 6 characters.")
        #expect(app.store.state.auth.failedAttempts == 2)
    }

    @Test("a wrong password shows invalid credentials and the right one logs in") func aWrongPasswordShowsInvalidCredentialsAndTheRightOneLogsIn() async {
        let app = makeApp()
        app.store.send(.authenticatePassword(username: "ava", password: "letmein!"))
        #expect(app.store.state.auth.status == .authenticating)
        await app.store.settle()
        #expect(app.store.state.auth.status == .loggedOut)
        #expect(app.store.state.auth.error?.type == "invalidCredentials")
        app.store.send(.errorDismissed)
        #expect(app.store.state.auth.error == nil)
        await logIn(app)
        #expect(app.store.state.auth.status == .loggedIn)
        #expect(app.store.state.auth.username == "nora.larsen")
        #expect(app.store.state.auth.token?.hasPrefix("tok_") == true)
    }

    @Test("a provider login fails on the network then succeeds") func aProviderLoginFailsOnTheNetworkThenSucceeds() async {
        let app = makeApp(failures: .requests([1]))
        app.store.send(.authenticateProvider(provider: "twitter"))
        await app.store.settle()
        #expect(app.store.state.auth.error?.type == "network")
        app.store.send(.authenticateProvider(provider: "twitter"))
        await app.store.settle()
        #expect(app.store.state.auth.status == .loggedIn)
        #expect(app.store.state.auth.method == "twitter")
    }

    @Test("fetching while logged out is turned into an error") func fetchingWhileLoggedOutIsTurnedIntoAnError() {
        let app = makeApp()
        app.store.send(.fetchUsers(page: 1))
        #expect(app.store.state.error?.type == "authRequired")
        #expect(!app.store.state.isFetching)
        #expect(app.store.state.requests == 0)
    }

    @Test("fetch pages then set one user") func fetchPagesThenSetOneUser() async throws {
        let app = makeApp()
        await logIn(app)
        app.store.send(.fetchUsers(page: 1))
        #expect(app.store.state.isFetching)
        await app.store.settle()
        let first = app.store.state.users
        #expect(first.count == UsersApp.pageSize)
        #expect(first.map(\.id) == (0..<UsersApp.pageSize).map { "u\(1000 + $0)" })
        #expect(first.allSatisfy { $0.email.hasSuffix("@example.com") && !$0.address.city.isEmpty && $0.bio == nil })
        app.store.send(.fetchUsers(page: 2))
        await app.store.settle()
        #expect(app.store.state.users.count == 2 * UsersApp.pageSize)
        #expect(app.store.state.page == 2)

        let target = try #require(app.store.state.users.dropFirst(30).first)
        app.store.send(.fetchUser(id: target.id))
        await app.store.settle()
        let updated = try #require(app.store.state.selectedUser)
        #expect(updated.id == target.id)
        #expect(updated.bio?.contains(target.company.name) == true)
        #expect(updated.followers >= target.followers)
        #expect(app.store.state.users.count == 2 * UsersApp.pageSize)

        app.store.send(.fetchUser(id: "u9999"))
        await app.store.settle()
        #expect(app.store.state.error?.type == "notFound")
        app.store.send(.logout)
        #expect(app.store.state == UsersState())
    }
}
