import Foundation
import RewindJSON
import RewindLog
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

/// A peer that holds the app token and a session's uuid, but not its secret: it says hello for
/// the session and keeps every reply.
final class Forger: Sendable {
    private let socket: AppSocket
    var client: WebSocketClient { socket.client }

    init(port: Int) throws {
        socket = try AppSocket(port: port)
    }

    /// Sends `hello` for `session` (with `secret`, or none) and returns the first reply.
    func hello(session: String, secret: String?, id: Int = 1) -> JSONValue? {
        socket.send(AppMessage.hello(AppMessage.Hello(id: .number(JSONNumber(id)), session: session, app: "Forger", secret: secret)).json)
        return wait { replies in replies.first { $0["id"] == .number(JSONNumber(id)) } }
    }

    func send(_ message: JSONValue) { socket.send(message) }

    var all: [JSONValue] { socket.state.value.replies }

    /// Waits until `value` finds something in the replies, the connection closes, or 20 s pass.
    func wait<T>(timeout: Double = 20, _ value: ([JSONValue]) -> T?) -> T? {
        socket.wait(timeout: timeout) { value($0.replies) }
    }
}

/// Issue 38, item 2: a session belongs to the app that started it. The app's recorder makes a
/// secret with each session and proves it at every hello; a peer with the app token and the
/// session's uuid alone is refused in one sentence that tells nothing of the session, stores
/// nothing in it, receives none of its commands and takes nothing from the app.
@Suite("A session belongs to the app that started it", .ownThreads)
struct SessionOwnerTests {
    static let refusal = "cannot be opened with this secret; a session belongs to the app that started it"

    @Test("a hello without the session's secret, or with another, is refused; the app streams on and takes its commands; nothing forged is stored")
    func forgedHelloRefused() throws {
        let running = try LinkedApp(program: CLIRunner.locate("ReSwiftShop"), actions: StandInSnippetTests.shop + [#"{"placed":{"_0":"order-112"}}"#])
        defer { running.stop() }
        for (index, secret) in [nil, "0123456789abcdef0123456789abcdef", String(repeating: "f", count: 64)].enumerated() {
            let forger = try Forger(port: running.port)
            defer { forger.client.close() }
            let reply = try #require(forger.hello(session: running.session, secret: secret, id: index + 1), "no reply to the forged hello")
            #expect(reply["type"] == "error" && reply["code"] == "not-owner", "\(reply)")
            #expect(reply["message"]?.stringValue?.contains(Self.refusal) == true, "\(reply)")
            // Nothing of the session is told: no welcome, no nextSeq.
            #expect(!forger.all.contains { $0["type"] == "welcome" || $0["nextSeq"] != nil }, "\(forger.all)")
            // An event after the refusal is not taken.
            forger.send(StreamingApp.event(6))
            let answer = forger.wait { replies in replies.first { $0["code"] == "hello-first" } }
            #expect(answer != nil, "\(forger.all)")
        }
        // The app is still the session's: the inspector's dispatch reaches it and is stored.
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        let dispatched = try LinkedApp.command(inspector, "d1", "dispatch", session: running.session, ["action": ["add": ["_0": 7]]])
        #expect(dispatched["ok"] == true, "\(dispatched)")
        try LinkedApp.waitForSeq(7, of: running.session, in: running.db)
        let verify = try CLIRunner.run(["verify", "--db", running.db])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        // Seqs 0…7, each the app's: the forgers' events were never stored.
        let exported = try CLIRunner.run(["export", running.session, "--db", running.db])
        let lines = exported.stdout.split(separator: "\n")
        #expect(lines.count == 8, "\(exported.stdout)")
        #expect(!exported.stdout.contains("increment") && !exported.stdout.contains("streamed"), "\(exported.stdout)")
    }

    @Test("on a team server, forged hellos on one instance neither drop the app's connection on the other nor learn its seq")
    func teamServerKeepsTheApp() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let first = try ServeProcess(["--port", "0", "--db", url])
        let second = try ServeProcess(["--port", "0", "--db", url])
        defer {
            for serve in [first, second] { serve.signal(SIGKILL); _ = serve.waitForExit() }
        }
        let firstPort = try #require(first.port(), "\(first.text)")
        let secondPort = try #require(second.port(), "\(second.text)")
        let session = UUID().uuidString.lowercased()
        let secret = String(repeating: "a1", count: 32)
        let app = try StreamingApp(port: firstPort)
        defer { app.client.close() }
        #expect(app.hello(session: session, secret: secret) == 0)
        for seq in 0...2 { app.send(StreamingApp.event(Int64(seq))) }
        #expect(app.waitForAck(2))

        for attempt in 1...8 {
            let forger = try Forger(port: secondPort)
            defer { forger.client.close() }
            let reply = forger.hello(session: session, secret: attempt.isMultiple(of: 2) ? nil : String(repeating: "b2", count: 32), id: attempt)
            #expect(reply?["code"] == "not-owner", "\(String(describing: reply))")
        }
        // The app's connection on the first instance was never dropped: it goes on from seq 3.
        #expect(!app.isClosed)
        app.send(StreamingApp.event(3))
        #expect(app.waitForAck(3))
        #expect(!app.isClosed)
        // The app itself, with its secret, resumes on the second instance once it lets go.
        app.client.close()
        #expect(app.waitForClose())
        var welcomed: Int64?
        let deadline = Date(timeIntervalSinceNow: 30)
        // The first instance may still hold the lease for a moment: the app retries, as its sink does.
        while welcomed == nil, Date() < deadline {
            let attempt = try StreamingApp(port: secondPort)
            welcomed = attempt.hello(session: session, secret: secret)
            attempt.client.close()
            if welcomed == nil { usleep(200_000) }
        }
        #expect(welcomed == 4)
    }

    @Test("rewind push of a session recorded before owners claims it with a secret the log then keeps, and proves it again; a log whose secret is another is refused in one sentence, exit 1")
    func pushClaimsAndProves() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let db = folder.path("served.db")
        let serve = try ServeProcess(["--port", "0", "--db", db])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let server = "ws://127.0.0.1:\(try #require(serve.port()))"
        let uuid = "5e55a000-0000-4000-8000-00000000000a"
        let device = folder.path("device.db")
        let local = try LogFixture.recordSession(path: device, uuid: uuid, startedAt: Date(timeIntervalSince1970: 1_763_700_000), count: 4)
        #expect(try LogReader(path: device).owner(session: local) == nil)

        let first = try CLIRunner.run(["push", "--db", device, "--server", server])
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        let kept = try #require(try LogReader(path: device).owner(session: local))
        let secret = try #require(kept.secret)
        // The server keeps the digest alone.
        let served = try #require(try LogReader(path: db).session(uuid: uuid))
        #expect(try LogReader(path: db).owner(session: served.id) == SessionOwner.proving(secret))

        // More events on the device, pushed again: the same secret, the rest delivered.
        let writer = try LogWriter(path: device)
        var builder = EventBuilder(resuming: local, nextSeq: 4, state: ["count": 3])
        writer.append([builder.next(action: ["type": "increment"], state: ["count": 4], at: Date(timeIntervalSince1970: 1_763_700_004))])
        try writer.flush()
        writer.close()
        let second = try CLIRunner.run(["push", "--db", device, "--server", server])
        #expect(second.status == 0, "\(second.stdout) \(second.stderr)")
        #expect(try LogReader(path: db).session(uuid: uuid)?.lastSeq == 4)

        // A copy of the session in a log with another secret (another device claiming the uuid).
        let other = folder.path("other.db")
        let copy = try LogFixture.recordSession(path: other, uuid: uuid, startedAt: Date(timeIntervalSince1970: 1_763_700_000), count: 6)
        let refused = try CLIRunner.run(["push", "--db", other, "--server", server, "--timeout", "10"])
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect((refused.stdout + refused.stderr).contains(Self.refusal), "\(refused.stdout) \(refused.stderr)")
        #expect(try LogReader(path: other).owner(session: copy)?.secret != secret)
        #expect(try LogReader(path: db).session(uuid: uuid)?.lastSeq == 4)
    }
}
