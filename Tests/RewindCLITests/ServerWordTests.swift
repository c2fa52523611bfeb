import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

/// Issue 38, items 3 and 4: what a server says is checked by the app and by `rewind push`. A
/// server that claims to hold more than was recorded (`welcome`'s `nextSeq`) or acknowledges
/// more than it was sent is not believed, and moves no mark; a server that welcomes and drops
/// at once is retried 0.1 s doubling to 5 s apart, as Integrating.md promises.
@Suite("A server's word, checked", .serialized, .ownThreads)
struct ServerWordTests {
    /// A fake `/app` server on libwebsockets: to each `hello` it answers `welcome` with `nextSeq`,
    /// then, if set, an `ack` of `ack`; with `drop`, it closes the connection right after.
    final class FakeAppServer: WebSocketServerDelegate, @unchecked Sendable {
        /// When each connection opened (monotonic seconds).
        let opens = Condition<[Double]>([])
        private let nextSeq: Int64
        private let ack: Int64?
        private let drop: Bool
        private var server: WebSocketServer!

        init(nextSeq: Int64, ack: Int64? = nil, drop: Bool = false) throws {
            self.nextSeq = nextSeq
            self.ack = ack
            self.drop = drop
            server = try ServerWordTests.startAppServer(self)
        }

        var url: String { "ws://127.0.0.1:\(server.port ?? 0)/app" }

        func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool { true }

        func didOpen(_ connection: WebSocketConnection) {
            let now = MonotonicClock.seconds()
            opens.update(waking: .all) { $0.append(now) }
        }

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            guard case .text(let bytes) = message, let hello = try? AppMessage(frame: bytes), case .hello(let said) = hello else { return }
            _ = connection.send(text: ServerToApp.welcome(id: said.id, session: said.session, nextSeq: nextSeq).json.serialized())
            if let ack { _ = connection.send(text: ServerToApp.ack(seq: ack).json.serialized()) }
            if drop { connection.close(code: .goingAway) }
        }

        func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {}

        func stop() { server.shutdown() }
    }

    static let child = CLIRunner.locate("RewindRecorderChild")

    /// A libwebsockets server on a free port of 127.0.0.1 with `/app` alone, for `delegate`.
    static func startAppServer(_ delegate: any WebSocketServerDelegate) throws -> WebSocketServer {
        let configuration = WebSocketServerConfiguration(endpoints: [WebSocketEndpoint(path: "/app", subprotocol: AppMessage.subprotocol)],
                                                         maxMessageSize: 64 << 20)
        let server = WebSocketServer(configuration: configuration, delegate: delegate)
        try server.start()
        return server
    }

    static func environment(_ folder: TemporaryDirectory, server: String) -> [String: String] {
        ["REWIND_SERVER": server, "REWIND_OUTBOX": folder.path("outbox"), "REWIND_DB": folder.path("unused.db"), "REWIND_TOKEN": ""]
    }

    /// The one local log under the outbox folder.
    static func localLog(_ folder: TemporaryDirectory) throws -> String {
        let outbox = folder.path("outbox")
        let files = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".db") }
        return outbox + "/" + (try #require(files.first, "no local log in \(outbox)"))
    }

    /// Runs the child app (`count` actions, then `finish`): its session and result.
    static func record(_ count: Int, _ environment: [String: String]) throws -> (uuid: String, result: JSONValue, stderr: String) {
        let run = try CLIRunner.run([String(count), "finish"], program: child, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        return (try #require(lines.first), try JSONValue(parsing: try #require(lines.dropFirst().first, "\(run.stdout) \(run.stderr)")), run.stderr)
    }

    @Test("an app acknowledged past what it sent keeps its events, says so, and delivers them whole to an honest server")
    func ackPastWhatWasSent() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let fake = try FakeAppServer(nextSeq: 0, ack: 1_000_000_000_000)
        defer { fake.stop() }
        let lied = try Self.record(12, Self.environment(folder, server: fake.url))
        #expect(lied.result["delivered"] == false, "\(lied.result)")
        #expect(lied.result["keptOnDevice"] == 13, "\(lied.result)")
        #expect(lied.stderr.contains("acknowledged seq 1000000000000") && lied.stderr.contains("not taken"), "\(lied.stderr)")
        let pending = try LogReader(path: try Self.localLog(folder)).pendingDeliveries()
        #expect(pending.map(\.session.uuid) == [lied.uuid] && pending.first?.ackedSeq ?? 0 < 12, "\(pending.map(\.ackedSeq))")

        // `rewind push` to the same liar: not delivered, exit 1, no mark moved.
        let push = try CLIRunner.run(["push", "--db", try Self.localLog(folder), "--server", fake.url, "--timeout", "5"])
        #expect(push.status == 1, "\(push.stdout) \(push.stderr)")
        #expect(!push.stdout.contains(": ok") && push.stdout.contains("not delivered"), "\(push.stdout)")
        #expect(try LogReader(path: try Self.localLog(folder)).pendingDeliveries().map(\.session.uuid) == [lied.uuid])

        // An honest server later gets every event.
        let db = folder.path("served.db")
        let serve = try ServeProcess(["--port", "0", "--db", db])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port())
        let honest = try CLIRunner.run(["push", "--db", try Self.localLog(folder), "--server", "ws://127.0.0.1:\(port)"])
        #expect(honest.status == 0, "\(honest.stdout) \(honest.stderr)")
        #expect(try LogReader(path: db).session(named: lied.uuid).lastSeq == 12)
    }

    @Test("rewind push to a server that says it holds more than was recorded: not held whole, exit 1, no mark moved")
    func welcomePastWhatWasRecorded() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let nobody = try ReservedPort()
        let away = try Self.record(6, Self.environment(folder, server: "ws://127.0.0.1:\(nobody.port)/app"))
        #expect(away.result["delivered"] == false, "\(away.result)")
        let fake = try FakeAppServer(nextSeq: 1_000_000_000_000_000)
        defer { fake.stop() }
        let push = try CLIRunner.run(["push", "--db", try Self.localLog(folder), "--server", fake.url, "--timeout", "5"])
        #expect(push.status == 1, "\(push.stdout) \(push.stderr)")
        #expect(!push.stdout.contains("held whole by") || push.stdout.contains("0 of 1"), "\(push.stdout)")
        #expect(push.stdout.contains("not delivered"), "\(push.stdout)")
        let pending = try LogReader(path: try Self.localLog(folder)).pendingDeliveries()
        #expect(pending.map(\.session.uuid) == [away.uuid] && pending.first?.ackedSeq == -1, "\(pending.map(\.ackedSeq))")
    }

    @Test("a server that welcomes and drops at once is retried 0.1 s doubling, not every 0.1 s")
    func backoffAfterAWelcomedDrop() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let fake = try FakeAppServer(nextSeq: 0, drop: true)
        defer { fake.stop() }
        let app = try RunningCLI(["20", "commit"], environment: Self.environment(folder, server: fake.url), program: Self.child)
        defer { app.stop() }
        #expect(fake.opens.wait(for: { !$0.isEmpty }, deadline: MonotonicClock.deadline(after: 30)), "\(app.stderr)")
        let first = try #require(fake.opens.withLock { $0.first })
        // 4 s after the first connection. Doubling from 0.1 s (each delay drawn between half and
        // all of it): at most 7 connections; without the doubling, about 50.
        _ = fake.opens.wait(for: { _ in MonotonicClock.seconds() >= first + 4 }, deadline: MonotonicClock.deadline(after: 4))
        let opens = fake.opens.withLock { $0 }.filter { $0 <= first + 4 }
        #expect(opens.count >= 3 && opens.count <= 9, "\(opens.count) connections in 4 s: \(opens.map { $0 - first })")
        let gaps = zip(opens.dropFirst(), opens).map { $0 - $1 }
        #expect(gaps.last ?? 0 >= 0.3, "the gaps did not grow: \(gaps)")
    }

    /// A server that stores every event (it acks them and resumes from the next), and goes away
    /// whenever an app says `end`, before storing it: as a server killed at that moment.
    final class EndlessServer: WebSocketServerDelegate, @unchecked Sendable {
        let ends = Condition(0)
        private let stored = Mutex<[String: Int64]>([:])
        private let sessions = Mutex<[UInt64: String]>([:])
        private var server: WebSocketServer!

        init() throws {
            server = try ServerWordTests.startAppServer(self)
        }

        var url: String { "ws://127.0.0.1:\(server.port ?? 0)/app" }

        func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool { true }
        func didOpen(_ connection: WebSocketConnection) {}
        func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {}

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            guard case .text(let bytes) = message, let said = try? AppMessage(frame: bytes) else { return }
            var seqs: [Int64] = []
            switch said {
            case .hello(let hello):
                sessions.withLock { $0[connection.id] = hello.session }
                let next = stored.withLock { ($0[hello.session] ?? -1) + 1 }
                _ = connection.send(text: ServerToApp.welcome(id: hello.id, session: hello.session, nextSeq: next).json.serialized())
                return
            case .event(let event): seqs = [event.seq]
            case .events(let batch): seqs = batch.events.map(\.seq)
            case .end:
                ends.update(waking: .all) { $0 += 1 }
                connection.close(code: .goingAway)
                return
            case .result: return
            }
            guard let uuid = sessions.withLock({ $0[connection.id] }), let last = seqs.max() else { return }
            stored.withLock { $0[uuid] = max($0[uuid] ?? -1, last) }
            _ = connection.send(text: ServerToApp.ack(seq: last).json.serialized())
        }

        func stop() { server.shutdown() }
    }

    @Test("a server that goes away after the last ack, before the end is stored: the next run delivers the end (the field soak's finding)")
    func endNotStored() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let endless = try EndlessServer()
        let endlessURL = endless.url
        let first = try Self.record(12, Self.environment(folder, server: endlessURL))
        #expect(endless.ends.wait(for: { $0 >= 1 }, deadline: MonotonicClock.deadline(after: 30)))
        endless.stop()
        #expect(first.result["delivered"] == false, "\(first.result)")
        let pending = try LogReader(path: try Self.localLog(folder)).pendingDeliveries()
        #expect(pending.map(\.session.uuid) == [first.uuid], "the ended session is still owed: \(pending.map(\.ackedSeq))")

        // The next run reaches a real server: it gets the earlier session whole, ended.
        let db = folder.path("served.db")
        let serve = try ServeProcess(["--port", "0", "--db", db])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port())
        var environment = Self.environment(folder, server: "ws://127.0.0.1:\(port)/app")
        // The local log is named for the server it was made for: the first one, then this one.
        environment["REWIND_SERVER"] = "\(endlessURL),ws://127.0.0.1:\(port)/app"
        let next = try CLIRunner.run(["3", "catchup-finish"], program: Self.child, environment: environment)
        #expect(next.status == 0, "\(next.stderr)")
        let session = try LogReader(path: db).session(named: first.uuid)
        #expect(session.lastSeq == 12)
        #expect(session.endedAt != nil, "the end never reached the server")
        #expect(try LogReader(path: try Self.localLog(folder)).pendingDeliveries().isEmpty)
    }
}
