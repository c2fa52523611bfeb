import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import Testing
import RewindTestSupport

/// Store and forward (issue 26): an app streaming to `rewind serve` keeps every event in a local
/// log on the device until the server has it. Real child processes (`RewindRecorderChild`, an
/// app on RewindRecorder alone) and a real `rewind serve`.
@Suite("Store and forward", .ownThreads)
struct StoreAndForwardTests {
    static let child = CLIRunner.locate("RewindRecorderChild")

    /// A server's folder: its log, and the apps' local logs (`REWIND_OUTBOX`).
    struct Place {
        let dir: TemporaryDirectory
        var db: String { dir.url.appendingPathComponent("server.db").path }
        var outbox: String { dir.url.appendingPathComponent("outbox").path }

        init() throws { dir = try TemporaryDirectory() }

        /// Starts `rewind serve` and returns once it listens.
        func serve(port: Int = 0, token: String? = nil) throws -> ServeProcess {
            let serve = try ServeProcess(["--port", String(port), "--db", db, "--web", dir.url.path] + (token.map { ["--token", $0] } ?? []))
            guard serve.port() != nil else { throw FixtureFailure(message: "rewind serve did not start on port \(port)") }
            return serve
        }

        func environment(port: Int, token: String? = nil) -> [String: String] {
            var environment = ["REWIND_SERVER": "ws://127.0.0.1:\(port)/app", "REWIND_OUTBOX": outbox,
                               "REWIND_DB": dir.url.appendingPathComponent("unused.db").path]
            environment["REWIND_TOKEN"] = token ?? ""
            return environment
        }

        /// The app's local log for the server on `port`.
        func localLog(port: Int) -> String { outbox + "/RecorderChild@127.0.0.1_\(port).db" }
    }

    /// Runs the child app: COUNT actions, then `finish`; returns its session and result.
    static func record(_ count: Int, environment: [String: String]) throws -> (uuid: String, result: JSONValue, stderr: String) {
        let run = try CLIRunner.run([String(count), "finish"], program: child, environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let uuid = try #require(lines.first)
        let result = try JSONValue(parsing: try #require(lines.dropFirst().first))
        return (uuid, result, run.stderr)
    }

    static func stop(_ serve: ServeProcess) {
        serve.signal(SIGKILL)
        _ = serve.waitForExit()
    }

    /// Every session the server holds verifies, and `uuid` holds `last + 1` events.
    static func expectStored(_ uuid: String, through last: Int64, in db: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try LogReader(path: db)
        let session = try reader.session(named: uuid)
        #expect(session.lastSeq == last, "\(uuid): \(String(describing: session.lastSeq))", sourceLocation: sourceLocation)
        let report = try Timeline(reader: reader, session: session.id).verify()
        #expect(report.passed, "\(String(describing: report.problem))", sourceLocation: sourceLocation)
        // The state after the last action is the child's: the sum of 1…last.
        let state = try Timeline(reader: reader, session: session.id).state(at: last)
        #expect(state["total"] == .number(JSONNumber(last * (last + 1) / 2)), sourceLocation: sourceLocation)
    }

    /// A port nothing listens on, where a server is started later: under the system's
    /// ephemeral range (``ReservedPort``), so the servers other tests start on port 0 meanwhile
    /// never take it (one did, once, with a port a stopped server had had).
    static func portNothingListensOn() throws -> Int {
        let reserved = try ReservedPort()
        defer { reserved.release() }
        return reserved.port
    }

    @Test("the server down: the app exits with every event kept on the device; the next run, with the server up, delivers both sessions")
    func serverDownThenUp() throws {
        let place = try Place()
        defer { place.dir.cleanup() }
        // A port nothing listens on; a server is started there later.
        let port = try Self.portNothingListensOn()

        let away = try Self.record(12, environment: place.environment(port: port))
        #expect(away.result["delivered"] == false)
        #expect(away.result["recorded"] == 13)
        #expect(away.result["acknowledged"] == 0)
        #expect(away.result["keptOnDevice"] == 13, "\(away.result)")
        #expect(away.result["lastError"]?.stringValue?.contains("127.0.0.1:\(port)") == true, "\(away.result)")
        let pending = try LogReader(path: place.localLog(port: port)).pendingDeliveries()
        #expect(pending.map(\.session.uuid) == [away.uuid])
        #expect(pending.first?.ackedSeq == -1)

        let serve = try place.serve(port: port)
        defer { Self.stop(serve) }
        let back = try Self.record(5, environment: place.environment(port: port))
        #expect(back.result["delivered"] == true, "\(back.result) \(back.stderr)")
        try Self.expectStored(away.uuid, through: 12, in: place.db)
        try Self.expectStored(back.uuid, through: 5, in: place.db)
        // Nothing is left to deliver, and the first session ended where it was recorded.
        #expect(try LogReader(path: place.localLog(port: port)).pendingDeliveries().isEmpty)
        #expect(try LogReader(path: place.db).session(named: away.uuid).endedAt != nil)
    }

    @Test("relaunched after an outage, caught up, then finished: the app exits on its own, run after run (issue 37)")
    func caughtUpThenFinished() throws {
        // The field's path: runs with the server down owe their sessions; the next run delivers
        // them, waits until their connections have closed, and only then finishes. The finish's
        // thread used to get an ended connection thread's pthread_t and stopped the app with
        // "waitUntilFinished called on the client's own service thread".
        let place = try Place()
        defer { place.dir.cleanup() }
        let port = try Self.portNothingListensOn()
        var owed: [(uuid: String, last: Int64)] = []
        for count in [6, 9] {
            let away = try Self.record(count, environment: place.environment(port: port))
            #expect(away.result["delivered"] == false, "\(away.result)")
            owed.append((away.uuid, Int64(count)))
        }
        // Delivered later, a session keeps the end its device recorded.
        let recordedBy = Date()
        var serve = try place.serve(port: port)
        defer { Self.stop(serve) }
        // Each relaunch owes one session more: a run whose server is down, between two that reach it.
        for (round, count) in [4, 7, 5].enumerated() {
            if round > 0 {
                Self.stop(serve)
                let away = try Self.record(3 + round, environment: place.environment(port: port))
                #expect(away.result["delivered"] == false, "\(away.result)")
                owed.append((away.uuid, Int64(3 + round)))
                serve = try place.serve(port: port)
            }
            let run = try CLIRunner.run([String(count), "catchup-finish"], program: Self.child, environment: place.environment(port: port))
            #expect(run.status == 0, "run \(round + 1) ended with \(run.status): \(run.stderr)")
            #expect(!run.stderr.contains("Precondition failed"), "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let uuid = try #require(lines.first)
            let result = try JSONValue(parsing: try #require(lines.dropFirst().first, "run \(round + 1) printed no result: \(run.stderr)"))
            #expect(result["delivered"] == true, "\(result) \(run.stderr)")
            owed.append((uuid, Int64(count)))
        }
        for session in owed { try Self.expectStored(session.uuid, through: session.last, in: place.db) }
        for session in owed.prefix(2) {
            let ended = try #require(try LogReader(path: place.db).session(named: session.uuid).endedAt)
            #expect(ended <= recordedBy, "\(session.uuid) ended at \(ended), after its run exited at \(recordedBy): the delivery's time")
        }
        #expect(try LogReader(path: place.localLog(port: port)).pendingDeliveries().isEmpty)
    }

    @Test("rewind push with a wrong token says so as the recorder does, not in the transport's words (issue 41)")
    func pushWrongToken() throws {
        let place = try Place()
        defer { place.dir.cleanup() }
        let port = try Self.portNothingListensOn()
        _ = try Self.record(3, environment: place.environment(port: port))
        let serve = try place.serve(port: port, token: "right-token-right-token")
        defer { Self.stop(serve) }
        let push = try CLIRunner.run(["push", "--db", place.localLog(port: port), "--server", "ws://127.0.0.1:\(port)", "--timeout", "5"],
                                     environment: ["REWIND_TOKEN": "wrong"])
        #expect(push.status == 1, "\(push.stdout) \(push.stderr)")
        #expect(push.stdout.contains("not delivered: cannot connect to ws://127.0.0.1:\(port)/app: the server refused the token"), "\(push.stdout)")
        #expect(!push.stdout.contains("HS: ws upgrade response"), "\(push.stdout)")
    }

    @Test("a wrong token: said once, the events kept; the right token the next run delivers both")
    func wrongTokenThenRight() throws {
        let place = try Place()
        defer { place.dir.cleanup() }
        let serve = try place.serve(token: "right")
        defer { Self.stop(serve) }
        let port = try #require(serve.port())
        let refused = try Self.record(7, environment: place.environment(port: port, token: "wrong"))
        #expect(refused.result["delivered"] == false)
        #expect(refused.result["keptOnDevice"] == 8, "\(refused.result)")
        #expect(refused.stderr.contains("token"), "\(refused.stderr)")
        #expect(throws: LogError.self) { try LogReader(path: place.db).session(named: refused.uuid) }

        let accepted = try Self.record(3, environment: place.environment(port: port, token: "right"))
        #expect(accepted.result["delivered"] == true, "\(accepted.result) \(accepted.stderr)")
        try Self.expectStored(refused.uuid, through: 7, in: place.db)
        try Self.expectStored(accepted.uuid, through: 3, in: place.db)
    }

    @Test("the app killed right after its local commit: the next run delivers what it had, and nothing twice")
    func killedAfterCommit() throws {
        let place = try Place()
        defer { place.dir.cleanup() }
        let port = try Self.portNothingListensOn()
        let app = try RunningCLI(["20", "commit"], environment: place.environment(port: port), program: Self.child)
        #expect(app.wait { out, _ in out.contains("committed\n") }, "\(app.stdout) \(app.stderr)")
        let uuid = try #require(app.stdout.split(separator: "\n").first.map(String.init))
        app.signal(SIGKILL)
        _ = app.waitForExit()

        let serve = try place.serve(port: port)
        defer { Self.stop(serve) }
        let next = try Self.record(2, environment: place.environment(port: port))
        #expect(next.result["delivered"] == true, "\(next.result) \(next.stderr)")
        try Self.expectStored(uuid, through: 20, in: place.db)
        // Killed, it never ended: delivered, the session stays open on the server.
        #expect(try LogReader(path: place.db).session(named: uuid).endedAt == nil)
        // A third run delivers nothing again.
        _ = try Self.record(1, environment: place.environment(port: port))
        #expect(try LogReader(path: place.db).session(named: uuid).lastSeq == 20)
        #expect(try LogReader(path: place.db).eventCount() == Int64(21 + 3 + 2))
    }

    @Test("rewind push delivers a local log's sessions, and pushing twice stores nothing twice")
    func pushTwice() throws {
        let place = try Place()
        defer { place.dir.cleanup() }
        let port = try Self.portNothingListensOn()
        let a = try Self.record(9, environment: place.environment(port: port))
        let b = try Self.record(4, environment: place.environment(port: port))
        #expect(a.result["delivered"] == false && b.result["delivered"] == false)

        let log = place.localLog(port: port)
        // Two backups of the local log as it is, taken before any push.
        let backup = place.dir.url.appendingPathComponent("backup.db").path
        let unreached = place.dir.url.appendingPathComponent("unreached.db").path
        for copy in [backup, unreached] {
            try FileManager.default.copyItem(atPath: log, toPath: copy)
            if FileManager.default.fileExists(atPath: log + "-wal") { try FileManager.default.copyItem(atPath: log + "-wal", toPath: copy + "-wal") }
        }

        let serve = try place.serve(port: port)
        defer { Self.stop(serve) }
        let push = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(port)", "--json"])
        #expect(push.status == 0, "\(push.stderr)")
        let lines = try push.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(lines.map { $0["uuid"]?.stringValue } == [a.uuid, b.uuid])
        #expect(lines.allSatisfy { $0["delivered"] == true && $0["serverHad"] == 0 }, "\(lines)")
        try Self.expectStored(a.uuid, through: 9, in: place.db)
        try Self.expectStored(b.uuid, through: 4, in: place.db)
        let stored = try LogReader(path: place.db).eventCount()

        // Again: the local log knows the server has both; nothing is sent.
        let again = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(port)"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("2 of 2 sessions held whole"), "\(again.stdout)")
        // A copy without the marks (a backup taken before the push): the server says it has
        // everything, and nothing is stored twice.
        // Another server: the marks are the first server's, so both sessions go to it whole.
        let elsewhere = try Place()
        defer { elsewhere.dir.cleanup() }
        let other = try elsewhere.serve()
        defer { Self.stop(other) }
        let otherPort = try #require(other.port())
        let toOther = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(otherPort)", "--json"])
        #expect(toOther.status == 0, "\(toOther.stderr)")
        let sent = try toOther.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(sent.map { $0["serverHad"] } == [0, 0], "\(toOther.stdout)")
        try Self.expectStored(a.uuid, through: 9, in: elsewhere.db)
        try Self.expectStored(b.uuid, through: 4, in: elsewhere.db)

        // A copy made before the push (a backup), without its marks: the server says it has
        // everything, and nothing is stored twice.
        let fromCopy = try CLIRunner.run(["push", "--db", backup, "--server", "ws://127.0.0.1:\(port)", "--json"])
        #expect(fromCopy.status == 0, "\(fromCopy.stderr)")
        let copied = try fromCopy.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(copied.map { $0["serverHad"] } == [10, 5], "\(fromCopy.stdout)")
        #expect(try LogReader(path: place.db).eventCount() == stored)
        // A server that cannot be reached: a sentence per session, and exit 1.
        let reserved = try ReservedPort()
        let down = try CLIRunner.run(["push", "--db", unreached, "--server", "ws://127.0.0.1:\(reserved.port)", "--timeout", "20", a.uuid])
        #expect(down.status == 1)
        #expect(down.stdout.contains("no answer, has 0: not delivered: cannot connect to ws://127.0.0.1:\(reserved.port)/app: nothing accepted the connection"), "\(down.stdout)")

        // With the server away, a session this log marked delivered says so without claiming
        // to have asked (issue 41).
        // (The marks name the other server now: the last push to it moved them.)
        Self.stop(other)
        let marked = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(otherPort)", "--timeout", "2"])
        #expect(marked.stdout.contains("already delivered (this log's mark; the server was not asked)"), "\(marked.stdout)")
        #expect(!marked.stdout.contains("the server had"), "\(marked.stdout)")
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
