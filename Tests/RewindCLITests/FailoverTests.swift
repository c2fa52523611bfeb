import Foundation
import Rewind
import RewindJSON
import RewindLog
import RewindReplay
import Testing
import RewindTestSupport

/// A recorder with several servers (`REWIND_SERVER` as a comma-separated list,
/// `ServerSink(url:fallbacks:)`, `rewind push --server A,B`), against real `rewind serve`
/// processes: the next one when one is down, refuses connections, is killed, or cannot store.
@Suite("Several servers: the next when one is down", .serialized, .ownThreads)
struct ServerFailoverTests {
    static let child = StoreAndForwardTests.child

    struct Counter: Codable, Sendable { var total = 0 }
    struct Add: Codable, Sendable { var amount: Int }

    /// `ws://127.0.0.1:PORT/app`, as the sink names a server.
    static func app(_ port: Int) -> URL { URL(string: "ws://127.0.0.1:\(port)/app")! }

    /// `rewind serve` for `place` on `port`, a port a test held (``ReservedPort``) and just let
    /// go; a server that does not start says what it printed.
    static func serve(_ place: StoreAndForwardTests.Place, on port: Int) throws -> ServeProcess {
        let serve = try ServeProcess(["--port", String(port), "--db", place.db, "--web", place.dir.url.path])
        guard serve.waitForOutput("/app\n", timeout: 60) else {
            throw FixtureFailure(message: "rewind serve did not start on port \(port): \(serve.text)")
        }
        return serve
    }

    @Test("a rewind serve killed with -9 mid-session: the recorder moves to the next, which on a log of its own gets the whole session from seq 0, and the first keeps what it acknowledged")
    func killedServerMidSession() throws {
        let first = try StoreAndForwardTests.Place()
        defer { first.dir.cleanup() }
        let second = try StoreAndForwardTests.Place()
        defer { second.dir.cleanup() }
        let a = try first.serve()
        defer { StoreAndForwardTests.stop(a) }
        let b = try second.serve()
        defer { StoreAndForwardTests.stop(b) }
        let aPort = try #require(a.port())
        let bPort = try #require(b.port())

        let sink = ServerSink(url: Self.app(aPort), fallbacks: [Self.app(bPort)], localLog: first.outbox, report: nil)
        defer { sink.disconnect() }
        var state = Counter()
        let recorder = Recorder<Counter, Add>(initialState: state, to: .sinks([sink]), metadata: RecordingMetadata(app: "Counter"))
        let uuid = recorder.session.uuid
        for amount in 1...40 {
            state.total += amount
            recorder.record(Add(amount: amount), state: state)
        }
        recorder.flush()
        #expect(sink.waitForAcknowledgements(timeout: .seconds(30)))
        #expect(sink.currentServer == Self.app(aPort))

        a.signal(SIGKILL)
        _ = a.waitForExit()
        for amount in 41...80 {
            state.total += amount
            recorder.record(Add(amount: amount), state: state)
        }
        recorder.flush()
        #expect(sink.waitForAcknowledgements(timeout: .seconds(60)), "\(sink.unacknowledgedCount) unacked; \(String(describing: sink.lastServerError ?? sink.lastConnectReport))")
        #expect(sink.currentServer == Self.app(bPort))
        recorder.stop()
        #expect(sink.waitUntilEnded(timeout: .seconds(30)))

        // The second server holds the whole session, verified; acknowledged, the first server's
        // events survived the kill.
        try StoreAndForwardTests.expectStored(uuid, through: 80, in: second.db)
        try StoreAndForwardTests.expectStored(uuid, through: 40, in: first.db)
        #expect(try LogReader(path: second.db).session(named: uuid).endedAt != nil)
        // Nothing is owed: the local log's mark names the server that holds the session, and
        // is one past its last seq: the server said its end is stored.
        let reader = try LogReader(path: try #require(sink.localLogPath))
        let local = try reader.session(named: uuid)
        #expect(try reader.deliveredSeq(session: local.id, server: Self.app(bPort).absoluteString) == 81)
        #expect(try reader.pendingDeliveries().isEmpty)
    }

    @Test("REWIND_SERVER lists a closed port first: the app streams to the next; a session the second holds whole is not sent to the first when it is back")
    func closedFirstThenBack() throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let other = try StoreAndForwardTests.Place()
        defer { other.dir.cleanup() }
        // A port nothing listens on, held until a server starts there so no one else takes it.
        let reserved = try ReservedPort()
        let aPort = reserved.port
        let b = try other.serve()
        defer { StoreAndForwardTests.stop(b) }
        let bPort = try #require(b.port())
        var environment = place.environment(port: aPort)
        environment["REWIND_SERVER"] = "ws://127.0.0.1:\(aPort)/app, ws://127.0.0.1:\(bPort)/app"

        let run = try StoreAndForwardTests.record(12, environment: environment)
        #expect(run.result["delivered"] == true, "\(run.result) \(run.stderr)")
        #expect(run.result["acknowledged"] == 13)
        // The refused server was said once, by its address.
        #expect(run.stderr.contains("cannot connect to \(Self.app(aPort).absoluteString): nothing accepted the connection"), "\(run.stderr)")
        try StoreAndForwardTests.expectStored(run.uuid, through: 12, in: other.db)
        // The local log is the first server's; its mark names the second.
        let local = try LogReader(path: place.localLog(port: aPort))
        #expect(try local.pendingDeliveries().isEmpty)
        #expect(try local.deliveredSeq(session: try local.session(named: run.uuid).id, server: Self.app(bPort).absoluteString) == 13)

        // The first server is back: the next run records there, and owes it nothing.
        reserved.release()
        let a = try Self.serve(place, on: aPort)
        defer { StoreAndForwardTests.stop(a) }
        let next = try StoreAndForwardTests.record(3, environment: environment)
        #expect(next.result["delivered"] == true, "\(next.result) \(next.stderr)")
        try StoreAndForwardTests.expectStored(next.uuid, through: 3, in: place.db)
        #expect(throws: LogError.self) { try LogReader(path: place.db).session(named: run.uuid) }
        #expect(throws: LogError.self) { try LogReader(path: other.db).session(named: next.uuid) }
    }

    @Test("a --read-only instance first in the list: the session goes to the instance that writes the same log")
    func readOnlyInstanceIsPassedOver() throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let writer = try place.serve()
        defer { StoreAndForwardTests.stop(writer) }
        let reader = try ServeProcess(["--port", "0", "--db", place.db, "--web", place.dir.url.path, "--read-only"])
        defer { StoreAndForwardTests.stop(reader) }
        let readerPort = try #require(reader.port())
        let writerPort = try #require(writer.port())
        var environment = place.environment(port: readerPort)
        environment["REWIND_SERVER"] = "ws://127.0.0.1:\(readerPort),ws://127.0.0.1:\(writerPort)"
        let run = try StoreAndForwardTests.record(9, environment: environment)
        #expect(run.result["delivered"] == true, "\(run.result) \(run.stderr)")
        try StoreAndForwardTests.expectStored(run.uuid, through: 9, in: place.db)
        let local = try LogReader(path: place.localLog(port: readerPort))
        #expect(try local.deliveredSeq(session: try local.session(named: run.uuid).id, server: Self.app(writerPort).absoluteString) == 10)
    }

    @Test("no server of the list answers: the events stay on the device, the result names the servers; rewind push --server A,B delivers them to the one that answers")
    func pushToAList() throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let other = try StoreAndForwardTests.Place()
        defer { other.dir.cleanup() }
        let a = try ReservedPort()
        let reserved = try ReservedPort()
        let aPort = a.port
        let bPort = reserved.port
        var environment = place.environment(port: aPort)
        let list = "ws://127.0.0.1:\(aPort),ws://127.0.0.1:\(bPort)"
        environment["REWIND_SERVER"] = list
        let away = try StoreAndForwardTests.record(6, environment: environment)
        #expect(away.result["delivered"] == false)
        #expect(away.result["keptOnDevice"] == 7, "\(away.result)")
        // Each server is said once, by its address; the result names one of them.
        for port in [aPort, bPort] {
            #expect(away.stderr.contains("cannot connect to \(Self.app(port).absoluteString): nothing accepted the connection"), "\(away.stderr)")
        }
        let lastError = try #require(away.result["lastError"]?.stringValue)
        #expect(lastError.contains("127.0.0.1:\(aPort)") || lastError.contains("127.0.0.1:\(bPort)"), "\(away.result)")

        reserved.release()
        let b = try Self.serve(other, on: bPort)
        defer { StoreAndForwardTests.stop(b) }
        let log = place.localLog(port: aPort)
        let push = try CLIRunner.run(["push", "--db", log, "--server", list, "--json"])
        #expect(push.status == 0, "\(push.stdout) \(push.stderr)")
        let line = try JSONValue(parsing: push.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(line["uuid"]?.stringValue == away.uuid)
        #expect(line["delivered"] == true && line["serverHad"] == 0, "\(line)")
        #expect(line["server"]?.stringValue == Self.app(bPort).absoluteString, "\(line)")
        try StoreAndForwardTests.expectStored(away.uuid, through: 6, in: other.db)
        // Again: the mark names a server of the list, so nothing is sent.
        let again = try CLIRunner.run(["push", "--db", log, "--server", list])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("has 7 on \(Self.app(bPort).absoluteString): ok"), "\(again.stdout)")
        #expect(again.stdout.contains("1 of 1 session held whole by one of \(Self.app(aPort).absoluteString), \(Self.app(bPort).absoluteString)"),
                "\(again.stdout)")
        // A wrong entry is said with its position, and nothing is pushed.
        let wrong = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(bPort),wss://team.example/inspect"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--server: server 2 of 2: wss://team.example/inspect names the path /inspect"), "\(wrong.stderr)")
    }
}
