import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

struct LoginState: Codable, Sendable, Equatable {
    struct Auth: Codable, Sendable, Equatable {
        var user = ""
        var token = ""
    }
    struct Form: Codable, Sendable, Equatable {
        var email = ""
        var password = ""
    }
    var auth = Auth()
    var form = Form()
    var headers: [String] = []
}

enum LoginAction: Codable, Sendable, Equatable {
    case login(user: String, token: String)
    case loginUnlabeled(String, String)
    case header(String)
    case typePassword(password: String)
    case logout
}

let loginReducer: Reducer<LoginState, LoginAction> = { state, action in
    switch action {
    case .login(let user, let token), .loginUnlabeled(let user, let token):
        state.auth = .init(user: user, token: token)
    case .header(let header):
        state.headers.append(header)
    case .typePassword(let password):
        state.form.password = password
    case .logout:
        state.auth = .init()
    }
    return .none
}

/// A value at a redacted pointer or key never leaves the app: not in states, not in actions
/// (whatever their shape), not in the log file, its WAL or its full-text index, not on the wire.
@Suite("Redaction through actions", .serialized, .ownThreads)
@MainActor
struct RedactionTests {
    static let secrets = ["tok-SECRET-111111", "tok-SECRET-222222", "hunter-SECRET-2"]

    static func drive(_ store: Store<LoginState, LoginAction>) {
        store.send(.login(user: "ada", token: secrets[0]))
        store.send(.header("Authorization: Bearer \(secrets[0])"))
        store.send(.logout)
        store.send(.loginUnlabeled("bob", secrets[1]))
        store.send(.typePassword(password: secrets[2]))
    }

    @Test("redacting /auth/token alone keeps the token out of the actions that carry it, and out of every byte of the log")
    func pointerRedactsActions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("login.db")
        let store = Store(initialState: LoginState(), reducer: loginReducer)
        let recorder = store.record(to: .file(path), app: "Login", redacting: ["/auth/token"], redactingKeys: ["password"])
        Self.drive(store)
        recorder.stop()

        let bytes = try directory.allBytes()
        #expect(bytes.count > 4096)
        for secret in Self.secrets + ["SECRET"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the log's files")
        }
        let log = try LogStates(path: path)
        #expect(log.events.map(\.action) == [
            ["type": "@@INIT"],
            ["login": ["user": "ada", "token": "<redacted>"]],
            ["header": ["_0": "Authorization: Bearer <redacted>"]],
            ["logout": [:]],
            ["loginUnlabeled": ["_0": "bob", "_1": "<redacted>"]],
            ["typePassword": ["password": "<redacted>"]],
        ])
        #expect(log.states.last?["form"]?["password"] == "<redacted>")
        #expect(log.states.last?["auth"]?["user"] == "bob")
        #expect(log.session.meta["redactedKeys"] == ["password"])
        // The text index finds the action, not the secret.
        let reader = try LogReader(path: path)
        let session = try reader.session(named: "latest")
        #expect(try reader.events(session: session.id, text: "SECRET").isEmpty)
        #expect(try reader.events(session: session.id, text: "ada").count == 1)
        // The recording still verifies against the reducer.
        #expect(try ReplayVerifier(reducer: loginReducer).firstMismatch(inLog: path) == nil)
    }

    @Test("nothing of a secret reaches the server: every frame sent, byte for byte")
    func nothingOnTheWire() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let store = Store(initialState: LoginState(), reducer: loginReducer)
        let recorder = store.record(to: .server(peer.url), app: "Login", redacting: ["/auth/token"], redactingKeys: ["password"])
        Self.drive(store)
        recorder.stop()
        #expect(await waitUntil(timeout: 20) { peer.state.events.count == 6 })
        let frames = peer.state.frames
        // Hello and the six events (in `event` frames or batches), each seen byte for byte.
        #expect(frames.count >= 2)
        #expect(peer.state.eventsPerFrame.reduce(0, +) == 6)
        for frame in frames {
            for secret in Self.secrets + ["SECRET"] {
                #expect(Data(frame).range(of: Data(secret.utf8)) == nil, "\(secret) was sent")
            }
        }
    }
}
