import Foundation
import Rewind
import RewindJSON
import RewindLog
import RewindPostgres
import RewindReplay
import RewindSupport
@testable import RewindCLI
import Testing
import RewindTestSupport

/// Issue 30: several `rewind serve` processes on one PostgreSQL database, with real apps,
/// inspectors and `kill -9`.
@Suite("A team server: several rewind serve on one PostgreSQL", .serialized, .ownThreads)
struct TeamServerTests {
    struct Counter: Codable, Sendable { var total = 0 }
    struct Add: Codable, Sendable { var amount: Int }

    static func app(_ port: Int) -> URL { URL(string: "ws://127.0.0.1:\(port)/app")! }

    /// `rewind serve --db URL`, once it listens.
    static func serve(_ url: String, port: Int = 0, arguments: [String] = []) throws -> ServeProcess {
        let serve = try ServeProcess(["--port", String(port), "--db", url] + arguments)
        guard serve.port(timeout: 60) != nil else {
            throw FixtureFailure(message: "rewind serve --db did not start: \(serve.text)")
        }
        return serve
    }

    static func stop(_ serve: ServeProcess) {
        serve.signal(SIGTERM)
        _ = serve.waitForExit()
    }

    /// One `rewind serve --db URL`, and an app's sink streaming to it with a local log in a
    /// folder of its own.
    struct ServedApp {
        let serve: ServeProcess
        let port: Int
        let sink: ServerSink
        let dir: TemporaryDirectory

        init(database url: String) throws {
            dir = try TemporaryDirectory()
            do {
                serve = try TeamServerTests.serve(url)
            } catch {
                dir.cleanup()
                throw error
            }
            port = serve.port() ?? 0
            sink = ServerSink(url: TeamServerTests.app(port), localLog: dir.path("outbox"), report: nil)
        }

        /// The sink, then the server, then the folder.
        func close() {
            sink.disconnect()
            TeamServerTests.stop(serve)
            dir.cleanup()
        }
    }

    /// An inspector on `port` subscribed to every session, once the server said so.
    static func inspectorOfEverything(port: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> DemoInspector {
        let inspector = try DemoInspector(port: port)
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.wait(timeout: 30) { $0["type"] == "subscribe" } != nil, sourceLocation: sourceLocation)
        return inspector
    }

    /// The session `uuid` holds seqs 0…last, verifies, and its last state is 1 + … + last.
    static func expectStored(_ uuid: String, through last: Int64, in url: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try PostgresLogStore(url: url).openReader()
        let session = try reader.session(named: uuid)
        #expect(session.lastSeq == last, "\(uuid): \(String(describing: session.lastSeq))", sourceLocation: sourceLocation)
        #expect(session.eventCount == Int(last) + 1, sourceLocation: sourceLocation)
        let timeline = try Timeline(reader: reader, session: session.id)
        let report = try timeline.verify()
        #expect(report.passed, "\(String(describing: report.problem))", sourceLocation: sourceLocation)
        #expect(try timeline.state(at: last)["total"] == .number(JSONNumber(last * (last + 1) / 2)), sourceLocation: sourceLocation)
    }

    /// The seqs of the live events `inspector` received for `uuid`, in arrival order.
    static func liveSeqs(_ inspector: DemoInspector, session uuid: String) -> [Int64] {
        inspector.received.compactMap { message -> Int64? in
            guard message["type"] == "event", message["session"]?.string == uuid else { return nil }
            return message["seq"]?.numberValue?.int64Value
        }
    }

    static func record(_ range: ClosedRange<Int>, _ recorder: Recorder<Counter, Add>, _ state: inout Counter) {
        for amount in range {
            state.total += amount
            recorder.record(Add(amount: amount), state: state)
        }
        recorder.flush()
    }

    @Test("two instances: an inspector on B gets every event an app streams to A, live; after kill -9 of A the app moves to B, and the session holds each event once")
    func twoInstancesAndAKill() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try Self.serve(url)
        defer { Self.stop(a) }
        let b = try Self.serve(url)
        defer { Self.stop(b) }
        let aPort = try #require(a.port())
        let bPort = try #require(b.port())
        let inspector = try Self.inspectorOfEverything(port: bPort)
        defer { inspector.close() }

        let sink = ServerSink(url: Self.app(aPort), fallbacks: [Self.app(bPort)], localLog: dir.path("outbox"), report: nil)
        defer { sink.disconnect() }
        var state = Counter()
        let recorder = Recorder<Counter, Add>(initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "Counter"))
        let uuid = recorder.session.uuid
        Self.record(1...40, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))
        #expect(sink.currentServer == Self.app(aPort))
        // B ingested nothing: each event reached its inspector through the database's notices.
        #expect(inspector.wait(timeout: 30) { $0["type"] == "event" && $0["seq"] == 40 } != nil, "\(Self.liveSeqs(inspector, session: uuid))")
        #expect(Self.liveSeqs(inspector, session: uuid) == Array(0...40))
        // B lists the session as live (its app streams it to A), and heard it start.
        // (The announcement travels on the bus, apart from the commits' notices: it may come later.)
        #expect(inspector.wait(timeout: 30) { $0["type"] == "session" && $0["session"]?["uuid"]?.string == uuid } != nil, "\(inspector.received.prefix(3))")
        inspector.send(["type": "sessions", "id": 2])
        let listed = inspector.wait(timeout: 30) { $0["type"] == "sessions" && $0["id"] == 2 }
        #expect(listed?["sessions"]?.arrayValue?.first { $0["uuid"]?.string == uuid }?["live"] == true, "\(String(describing: listed))")

        a.signal(SIGKILL)
        _ = a.waitForExit()
        Self.record(41...80, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(60)), "\(sink.unacknowledgedCount) unacked; \(String(describing: sink.lastServerError ?? sink.lastConnectReport))")
        #expect(sink.currentServer == Self.app(bPort))
        #expect(inspector.wait(timeout: 30) { $0["type"] == "event" && $0["seq"] == 80 } != nil)
        recorder.stop()
        #expect(sink.waitUntilEnded(timeout: .seconds(30)))

        // Nothing lost, nothing doubled: the store holds 0…80 once (its primary key and the
        // gap-free trigger would refuse a second copy), and the chain verifies.
        try Self.expectStored(uuid, through: 80, in: url)
        let verify = try CLIRunner.run(["verify", uuid, "--db", url])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        // The inspector saw every seq; an event resent to B after the kill may be pushed again
        // (the app resends what A had not acknowledged), never one out of order or missing.
        let seen = Self.liveSeqs(inspector, session: uuid)
        #expect(Set(seen) == Set(0...80))
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.1 > $0.0 || $0.1 >= 41 }, "\(seen)")
    }

    /// The value of `name` (with its labels, as written) in a `/metrics` answer; the Python test
    /// reads the format with Prometheus' own parser, this one only looks up lines.
    static func metric(_ name: String, port: Int) throws -> Double? {
        let response = try HTTPGet.fetch(host: "127.0.0.1", port: port, path: "/metrics", token: nil, timeout: 20)
        let text = String(decoding: response.body, as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("--metrics on a team store: A counts the lease it took and gave back, B the bus messages it read and the feed's lag; both count the store as postgres")
    func teamMetrics() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let a = try Self.serve(url, arguments: ["--metrics", "--log-format", "json"])
        defer { Self.stop(a) }
        let b = try Self.serve(url, arguments: ["--metrics"])
        defer { Self.stop(b) }
        let aPort = try #require(a.port())
        let bPort = try #require(b.port())
        let inspector = try Self.inspectorOfEverything(port: bPort)
        defer { inspector.close() }
        let sink = ServerSink(url: Self.app(aPort), report: nil)
        defer { sink.disconnect() }
        var state = Counter()
        let recorder = Recorder<Counter, Add>(initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "Counter"))
        Self.record(1...20, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))
        #expect(inspector.wait(timeout: 30) { $0["type"] == "event" && $0["seq"] == 20 } != nil)
        #expect(try Self.metric(#"rewind_events_stored_total{store="postgres"}"#, port: aPort) == 21)
        #expect(try Self.metric("rewind_lease_changes_total", port: aPort) == 1)
        #expect(try Self.metric("rewind_sessions_live", port: aPort) == 1)
        #expect(try Self.metric(#"rewind_events_received_total{store="postgres"}"#, port: bPort) == 0)
        #expect((try Self.metric("rewind_bus_messages_total", port: bPort) ?? 0) >= 1)
        let lag = try #require(try Self.metric("rewind_feed_lag_seconds", port: bPort))
        #expect(lag >= 0 && lag < 30, "\(lag)")
        recorder.stop()
        #expect(sink.waitUntilEnded(timeout: .seconds(30)))
        // The end gives the lease back: taken once, given up once.
        var changes: Double?
        let deadline = Date().addingTimeInterval(20)
        repeat {
            changes = try Self.metric("rewind_lease_changes_total", port: aPort)
        } while changes != 2 && Date() < deadline
        #expect(changes == 2)
        // A's JSON log names the session, its app and this instance (the same id on each line).
        #expect(a.waitForOutput("\"session-ended\""), "\(a.text)")
        let lines = a.text.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        let started = try #require(lines.first { $0["event"] == "session-started" }, "\(a.text)")
        #expect(started["session"] == .string(recorder.session.uuid))
        #expect(started["app"] == "Counter")
        let instances = Set(lines.compactMap { $0["instance"]?.stringValue })
        #expect(instances.count == 1 && instances.first?.count == 36, "\(instances)")
    }

    @Test("two instances started at once on an empty database both serve it: the schema is made once, under the migration lock")
    func concurrentStart() throws {
        let cluster = try PostgresTestCluster.shared()
        let url = try cluster.createDatabase()
        let first = try ServeProcess(["--port", "0", "--db", url])
        let second = try ServeProcess(["--port", "0", "--db", url])
        defer { Self.stop(first); Self.stop(second) }
        #expect(first.waitForOutput("/app\n", timeout: 60), "\(first.text)")
        #expect(second.waitForOutput("/app\n", timeout: 60), "\(second.text)")
        let database = try #require(url.split(separator: "/").last.map(String.init))
        let versions = try cluster.psql("SELECT version FROM rewind_schema ORDER BY version", database: database)
        #expect(versions.split(whereSeparator: \.isNewline).map(String.init) == ["1", "2", "3", "4", "5", "6"], "\(versions)")
    }

    @Test("a wrong password, an unreachable database and a malformed URL are one sentence at start, without the password")
    func badDatabaseAtStart() throws {
        let cluster = try PostgresTestCluster.shared()
        // A URL that is not one is a usage error (2); a database that refuses is a failure (1).
        let cases: [(url: String, expected: String, status: Int32)] = [
            ("postgres://rewind:wrong-secret@127.0.0.1:\(cluster.port)/postgres", "password authentication failed", 1),
            ("postgres://rewind:wrong-secret@127.0.0.1:1/postgres", "cannot be reached", 1),
            ("postgres://rewind:wrong-secret@/nodb", "names no host", 2),
        ]
        for (url, expected, code) in cases {
            let serve = try ServeProcess(["--port", "0", "--db", url])
            let status = serve.waitForExit(timeout: 30)
            #expect(status == code, "\(url): \(serve.text)")
            let lines = serve.text.split(whereSeparator: \.isNewline)
            #expect(lines.count == 1, "\(serve.text)")
            #expect(serve.text.contains(expected), "\(serve.text)")
            #expect(!serve.text.contains("wrong-secret"), "\(serve.text)")
        }
        // REWIND_DB names the database as --db does.
        var environment = ProcessInfo.processInfo.environment
        environment["REWIND_DB"] = cases[0].url
        let fromEnvironment = try ServeProcess(["--port", "0"], environment: environment)
        #expect(fromEnvironment.waitForExit(timeout: 30) == 1)
        #expect(fromEnvironment.text.contains("password authentication failed"), "\(fromEnvironment.text)")
        #expect(!fromEnvironment.text.contains("wrong-secret"))
    }
}

extension TeamServerTests {
    @Test("commands across instances: with the demo app on A, a jump and a branch asked on B reach the app, and the branch is in the shared store")
    func branchAcrossInstances() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let a = try Self.serve(url)
        defer { Self.stop(a) }
        let b = try Self.serve(url)
        defer { Self.stop(b) }
        let aPort = try #require(a.port())
        let bPort = try #require(b.port())
        let demo = try RunningCLI(["demo", "--server", "ws://127.0.0.1:\(aPort)/app", "--app", "breweries", "--rate", "40", "--duration", "60"])
        defer { demo.stop() }
        // The demo's session, once it has a few actions, as B lists it.
        var original: JSONValue?
        #expect(waitUntil(timeout: .seconds(60)) {
            let listed = (try? jsonLines((try? CLIRunner.run(["sessions", "--json", "--db", url]).stdout) ?? "")) ?? []
            original = listed.first { ($0["lastSeq"]?.numberValue?.int64Value ?? 0) >= 6 }
            return original != nil
        })
        let session = try #require(original?["uuid"]?.string)

        // A jump asked on B: the app on A answers, and B's inspector gets the answer.
        let inspector = try DemoInspector(port: bPort)
        defer { inspector.close() }
        inspector.send(["type": "command", "id": "j1", "kind": "jump", "session": .string(session), "seq": 2])
        let jumped = inspector.wait(timeout: 30) { $0["id"] == "j1" }
        #expect(jumped?["type"] == "command" && jumped?["ok"] == true, "\(String(describing: jumped))")
        inspector.send(["type": "command", "id": "r1", "kind": "resume", "session": .string(session)])
        #expect(inspector.wait(timeout: 30) { $0["id"] == "r1" }?["ok"] == true)

        // A branch asked on B: recomputed by the app's reducer on A, stored in the shared store.
        let edit = #"3={"type":"breweries/city/changed","city":"Zanzibar"}"#
        let result = try CLIRunner.run(["branch", session, "--skip", "2", "--edit", edit, "--server", "ws://127.0.0.1:\(bPort)"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("branched into session ") == true, "\(result.stdout)")
        let branch = try #require(lines.first?.split(separator: " ")[3].trimmingCharacters(in: [":"]))
        let state = try JSONValue(parsing: try CLIRunner.run(["state", "\(branch)@3", "--path", "/city", "--db", url]).stdout)
        #expect(state == "Zanzibar")
        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", url]).stdout)
        #expect(sessions.first { $0["uuid"]?.string == branch }?["replayOf"]?.string == session)

        // With the app gone from A, B says so in one sentence.
        demo.signal(SIGTERM)
        _ = demo.waitForExit()
        #expect(waitUntil(timeout: .seconds(30)) {
            let listed = (try? jsonLines((try? CLIRunner.run(["sessions", "--json", "--db", url]).stdout) ?? "")) ?? []
            return listed.first { $0["uuid"]?.string == session }?["endedAt"] != nil
        })
        let offline = try CLIRunner.run(["branch", session, "--skip", "2", "--server", "ws://127.0.0.1:\(bPort)"])
        #expect(offline.status == 1)
        #expect(offline.stderr.contains("a branch needs the app's reducer"), "\(offline.stderr)")
    }
}

extension TeamServerTests {
    @Test("the database restarted under load: the app hears storage errors, keeps its events, and once the database is back every event is stored once")
    func databaseRestartUnderLoad() throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.destroy() }
        let url = try cluster.createDatabase()
        let served = try ServedApp(database: url)
        defer { served.close() }
        let sink = served.sink
        var state = Counter()
        let recorder = Recorder<Counter, Add>(initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "Counter"))
        let uuid = recorder.session.uuid
        Self.record(1...100, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))

        // Recording goes on while the database stops and starts again.
        let restarted = Mutex<Error?>(nil)
        let restart = Thread {
            do { try cluster.restart() } catch { restarted.withLock { $0 = error } }
        }
        restart.start()
        // The load: an action every 5 ms (about 200 a second) for as long as the restart takes,
        // then 50 more with the database back.
        var last = 100
        var heard: Set<String> = []
        let deadline = MonotonicClock.seconds() + 120
        while !restart.isFinished && MonotonicClock.seconds() < deadline {
            last += 1
            Self.record(last...last, recorder, &state)
            usleep(5_000)
            if let error = sink.lastServerError { heard.insert(error) }
        }
        #expect(restart.isFinished)
        #expect(restarted.withLock { $0 } == nil)
        Self.record((last + 1)...(last + 50), recorder, &state)
        last += 50
        #expect(sink.waitForAcknowledgements(timeout: .seconds(90)), "\(sink.unacknowledgedCount) unacked; \(String(describing: sink.lastServerError ?? sink.lastConnectReport))")
        recorder.stop()
        #expect(sink.waitUntilEnded(timeout: .seconds(30)))
        try Self.expectStored(uuid, through: Int64(last), in: url)
        // The app heard the database was away (it reconnected to say hello again) and was told why.
        #expect(sink.connectionCount >= 2, "\(sink.connectionCount) connections")
        #expect(heard.contains { $0.contains("could not be stored") || $0.contains("could not open the session") }, "\(heard)")
        // The restart took long enough to be met by events: some were sent while it ran.
        #expect(last > 160, "only \(last - 150) events met the restart")
    }
}

extension TeamServerTests {
    @Test("two instances over TLS with scoped tokens: a recorder streams to A over wss with the app token, rewind tail reads it on B with the inspect token; each token is refused the other's side")
    func tlsAndScopedTokensAcrossInstances() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let certificates = try TestCertificates()
        let arguments = ["--tls-cert", certificates.certificate, "--tls-key", certificates.key,
                         "--app-token", "team-app", "--inspect-token", "team-inspect"]
        let a = try Self.serve(url, arguments: arguments)
        defer { Self.stop(a) }
        let b = try Self.serve(url, arguments: arguments)
        defer { Self.stop(b) }
        let aPort = try #require(a.port())
        let bPort = try #require(b.port())
        let tail = try RunningCLI(["tail", "--json", "--server", "wss://127.0.0.1:\(bPort)", "--ca-file", certificates.caFile,
                                   "--token", "team-inspect"])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for"), "\(tail.stderr)")
        let run = try CLIRunner.run(["6"], program: EnvironmentRecordingTests.child, environment: [
            "REWIND_SERVER": "wss://127.0.0.1:\(aPort)/app", "REWIND_CA_FILE": certificates.caFile, "REWIND_TOKEN": "team-app",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Seq 0 (the initial state) and six actions, read on B from A's commits.
        #expect(tail.waitForLines(7), "\(tail.stdout) \(tail.stderr)")
        try Self.expectStored(uuid, through: 6, in: url)

        let tailRefused = try CLIRunner.run(["tail", uuid, "--server", "wss://127.0.0.1:\(bPort)", "--ca-file", certificates.caFile,
                                             "--token", "team-app"])
        #expect(tailRefused.status == 1)
        #expect(tailRefused.stderr.contains("an app token may only stream"), "\(tailRefused.stderr)")
        let appRefused = try CLIRunner.run(["1", "finish"], program: EnvironmentRecordingTests.child, environment: [
            "REWIND_SERVER": "wss://127.0.0.1:\(bPort)/app", "REWIND_CA_FILE": certificates.caFile, "REWIND_TOKEN": "team-inspect",
            "REWIND_OUTBOX": certificates.directory.path("outbox"),
        ])
        #expect(appRefused.stderr.contains("cannot connect to wss://127.0.0.1:\(bPort)/app: the server refused the token"), "\(appRefused.stderr)")
    }
}

extension TeamServerTests {
    @Test("a NOTIFY on rewind_events is a hint: made up, repeated or naming old events, it pushes nothing an inspector on another instance did not already have, and nothing of an ended session (issue 38)")
    func forgedEventNotices() throws {
        let cluster = try PostgresTestCluster.shared()
        let url = try cluster.createDatabase()
        let database = try #require(url.split(separator: "/").last.map(String.init))
        let first = try Self.serve(url)
        let second = try Self.serve(url)
        defer { Self.stop(first); Self.stop(second) }
        let firstPort = try #require(first.port())
        let secondPort = try #require(second.port())
        // An ended session of 300 events, and a live one of 101, both streamed to the first.
        let ended = UUID().uuidString.lowercased()
        let endedApp = try StreamingApp(port: firstPort)
        #expect(endedApp.hello(session: ended) == 0)
        for seq in 0..<300 { endedApp.send(StreamingApp.event(Int64(seq))) }
        #expect(endedApp.waitForAck(299))
        endedApp.send(["type": "end"])
        let live = UUID().uuidString.lowercased()
        let liveApp = try StreamingApp(port: firstPort)
        defer { liveApp.client.close() }
        #expect(liveApp.hello(session: live) == 0)
        for seq in 0...100 { liveApp.send(StreamingApp.event(Int64(seq))) }
        #expect(liveApp.waitForAck(100))
        let reader = try PostgresLogStore(url: url).openReader()
        let endedID = try #require(try reader.session(uuid: ended)?.id)
        let liveID = try #require(try reader.session(uuid: live)?.id)
        #expect(waitUntil(timeout: .seconds(30)) { (try? reader.session(id: endedID).endedAt) != nil })

        // An inspector on the second instance follows every session.
        let tail = try RunningCLI(["tail", "--all", "--json", "--server", "ws://127.0.0.1:\(secondPort)"])
        defer { tail.stop() }
        #expect(tail.waitForError("following every session: 1 live now"), "stderr: \(tail.stderr)")
        // Forged notices, as any role that may log in can send them: the ended session whole,
        // old events of the live one, events it does not have, each five times.
        for _ in 0..<5 {
            for payload in ["\(endedID) 0 299", "\(liveID) 0 50", "\(liveID) 101 1500", "\(endedID) 250 299"] {
                _ = try cluster.psql("SELECT pg_notify('rewind_events', '\(payload)')", database: database)
            }
        }
        // A real event of the live session: once the tail has it, every notice before it was
        // handled (they are taken in order on one thread).
        liveApp.send(StreamingApp.event(101))
        #expect(liveApp.waitForAck(101))
        #expect(tail.waitForLines(1), "stdout: \(tail.stdout)")
        let lines = try tail.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(lines.map { $0["seq"] } == [101], "\(tail.stdout.prefix(2_000))")
        #expect(lines.allSatisfy { $0["session"]?.stringValue == live }, "\(tail.stdout.prefix(2_000))")
    }

    @Test("a message on the database's bus reaches an app only as a command another instance stored: a forged notification, a stale or repeated row, or an ack in a command's place does not")
    func forgedBusMessages() throws {
        let cluster = try PostgresTestCluster.shared()
        let url = try cluster.createDatabase()
        let database = try #require(url.split(separator: "/").last.map(String.init))
        let served = try ServedApp(database: url)
        defer { served.close() }
        let sink = served.sink
        let received = Mutex<[String]>([])
        sink.onCommand { command in
            received.withLock { $0.append(command.arguments["action"]?["type"]?.stringValue ?? command.kind.rawValue) }
            return .done()
        }
        var state = Counter()
        let recorder = Recorder<Counter, Add>(initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "Counter"))
        Self.record(1...3, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))
        let session = try PostgresLogStore(url: url).openReader().session(named: recorder.session.uuid).id

        func command(_ type: String) -> String {
            #"{"kind":"command","from":"elsewhere","session":\#(session),"command":{"type":"command","id":"x-\#(type)","kind":"dispatch","action":{"type":"\#(type)"}}}"#
        }
        func stored(_ message: String, age: Int = 0) throws -> String {
            let quoted = message.replacingOccurrences(of: "'", with: "''")
            return try cluster.psql("INSERT INTO rewind_bus(payload, created_at) VALUES ('\(quoted)', extract(epoch FROM now()) - \(age)) RETURNING id",
                                    database: database).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A message in the notification itself, as anyone who can log in may send one.
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(command("forged/inline").replacingOccurrences(of: "'", with: "''"))')", database: database)
        // A row older than a minute.
        let old = try stored(command("forged/stale"), age: 120)
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(old)')", database: database)
        // An ack where the command should be.
        let ack = try stored(#"{"kind":"command","from":"elsewhere","session":\#(session),"command":{"type":"ack","seq":100000}}"#)
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(ack)')", database: database)
        // A real one, then its id notified again.
        let real = try stored(command("shop/real"))
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(real)')", database: database)
        #expect(waitUntil(timeout: .seconds(30)) { received.withLock { !$0.isEmpty } })
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(real)')", database: database)
        // A last real one: once it is in, every message before it was handled.
        let last = try stored(command("shop/last"))
        _ = try cluster.psql("SELECT pg_notify('rewind_bus', '\(last)')", database: database)
        #expect(waitUntil(timeout: .seconds(30)) { received.withLock { $0.count >= 2 } })
        #expect(received.withLock { $0 } == ["shop/real", "shop/last"])
        // The app kept streaming: nothing told it more was stored than was.
        Self.record(4...6, recorder, &state)
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))
        recorder.stop()
        #expect(sink.waitUntilEnded(timeout: .seconds(30)))
        try Self.expectStored(recorder.session.uuid, through: 6, in: url)
    }
}

extension TeamServerTests {
    @Test("a branch asked on B after the app caught up on A: the app delivers the branch and lives on (issue 37)")
    func branchAfterCatchUp() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let child = CLIRunner.locate("RewindStoreChild")
        // A's port, known before the app's first run: A is started, then stopped.
        var a = try Self.serve(url)
        let aPort = try #require(a.port())
        Self.stop(a)
        let environment = ["REWIND_SERVER": "ws://127.0.0.1:\(aPort)/app",
                           "REWIND_OUTBOX": folder.url.appendingPathComponent("outbox").path,
                           "REWIND_DB": folder.url.appendingPathComponent("unused.db").path]
        let actions = [#"{"add":{"_0":3}}"#, #"{"add":{"_0":4}}"#, #"{"add":{"_0":5}}"#, #"{"remove":{"_0":0}}"#]

        // The first run finds no server: its session stays on the device.
        let away = try RunningCLI(actions, environment: environment, program: child)
        #expect(away.wait { out, _ in out.components(separatedBy: "\nstate ").count > actions.count }, "\(away.stdout) \(away.stderr)")
        away.signal(SIGTERM)
        #expect(away.waitForExit(timeout: 60) == 0, "\(away.stderr)")
        #expect(away.stdout.contains(#"finished {"acknowledged":0,"delivered":false"#), "\(away.stdout)")

        a = try Self.serve(url, port: aPort)
        defer { Self.stop(a) }
        let b = try Self.serve(url)
        defer { Self.stop(b) }
        let bPort = try #require(b.port())

        // The relaunch delivers the owed session, ended, and records a new one.
        let app = try RunningCLI(actions, environment: environment, program: child)
        defer { app.stop() }
        var sessions: [JSONValue] = []
        #expect(waitUntil(timeout: .seconds(60)) {
            sessions = (try? jsonLines((try? CLIRunner.run(["sessions", "--json", "--db", url]).stdout) ?? "")) ?? []
            return sessions.count == 2 && sessions.allSatisfy { $0["lastSeq"] == 4 }
                && sessions.contains { $0["endedAt"] != .null }
        }, "\(sessions)")
        let live = try #require(sessions.first { $0["endedAt"] == .null }?["uuid"]?.string)

        // Branches asked on B once the catch-up is over: the app on A recomputes each.
        for round in 1...3 {
            let result = try CLIRunner.run(["branch", live, "--skip", "2", "--server", "ws://127.0.0.1:\(bPort)"])
            #expect(result.status == 0, "branch \(round): \(result.stderr) (app: \(app.stderr))")
            #expect(result.stdout.hasPrefix("branched into session "), "\(result.stdout)")
        }
        app.signal(SIGTERM)
        #expect(app.waitForExit(timeout: 60) == 0, "the app: \(app.stderr)")
        #expect(!app.stderr.contains("Precondition failed"), "\(app.stderr)")
        #expect(app.stdout.contains(#""delivered":true"#), "\(app.stdout)")
        let verify = try CLIRunner.run(["verify", "--db", url])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.split(separator: "\n").count == 5, "two sessions and three branches: \(verify.stdout)")
    }
}

extension TeamServerTests {
    @Test("prune of a session an app streams now: one sentence and exit 1, not 'no session matched' (issue 38)")
    func pruneALiveSession() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let serve = try Self.serve(url)
        defer { Self.stop(serve) }
        let port = try #require(serve.port())
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let app = try RunningCLI([#"{"add":{"_0":3}}"#, #"{"add":{"_0":4}}"#],
                                 environment: ["REWIND_SERVER": "ws://127.0.0.1:\(port)/app", "REWIND_OUTBOX": folder.path("outbox"),
                                               "REWIND_DB": folder.path("unused.db")],
                                 program: CLIRunner.locate("RewindStoreChild"))
        defer { app.stop() }
        var uuid: String?
        #expect(waitUntil(timeout: .seconds(60)) {
            let listed = (try? jsonLines((try? CLIRunner.run(["sessions", "--json", "--db", url]).stdout) ?? "")) ?? []
            uuid = listed.first { ($0["lastSeq"]?.numberValue?.int64Value ?? -1) >= 2 }?["uuid"]?.string
            return uuid != nil
        })
        let session = try #require(uuid)
        let pruned = try CLIRunner.run(["prune", session, "--db", url])
        #expect(pruned.status == 1, "\(pruned.stdout) \(pruned.stderr)")
        #expect(pruned.stderr.contains("was not removed: an app streams it now"), "\(pruned.stderr)")
        #expect(!pruned.stdout.contains("no session matched"), "\(pruned.stdout)")
        #expect(try PostgresLogStore(url: url).openReader().session(named: session).lastSeq == 2)
    }
}
