import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import Testing
import RewindTestSupport

/// The hostile-input suites (issue 13's repros), run one at a time: each drives a real server
/// hard, and running them side by side would only measure the machine.
@Suite("Hostile input", .serialized, .ownThreads)
enum HostileInput {}

/// What every hostile-input test checks after its attack: the four promises of `Docs/Security.md`.
///
/// A control app (its own session) streams a few events before the attack (call
/// ``HealthCheck/init(_:)`` first) and a few after it (``expectHealthy(sourceLocation:)``), so the
/// check covers both "nothing acked is lost" and "the server still answers and stores".
final class HealthCheck {
    let fixture: ServerFixture
    let uuid = "health-" + UUID().uuidString
    private var recording = Recording()
    private let app: JSONClient
    private var sent: Int64 = 0

    /// Connects the control app and has its first events acked.
    init(_ fixture: ServerFixture) throws {
        self.fixture = fixture
        let (app, next) = try fixture.helloApp(uuid)
        guard next == 0 else { throw FixtureError(description: "the control session \(uuid) is not new") }
        self.app = app
        try stream(3)
    }

    /// Sends `count` more control events and waits for their acks.
    private func stream(_ count: Int64) throws {
        for seq in sent..<(sent + count) { app.send(recording.event(seq)) }
        sent += count
        guard app.waitForAck(sent - 1, timeout: 30) else {
            throw FixtureError(description: "the control app's event \(sent - 1) was not acked: \(app.state.value.messages.suffix(3))")
        }
    }

    /// Checks, after an attack: the server lives and answers a well-formed request on `/inspect`,
    /// still acks the control app, every session in the log verifies, and every event acked to the
    /// control app (and, if given, to `attacker` up to `ackedByAttacker`) reads back.
    func expectHealthy(alsoAcked attacker: (session: String, throughSeq: Int64)? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        inspector.send(["type": "sessions", "id": 9_001])
        let reply = inspector.waitForReply(id: 9_001, timeout: 30)
        #expect(reply?["type"] == "sessions", "the server did not answer `sessions` after the attack: \(String(describing: reply))",
                sourceLocation: sourceLocation)
        try stream(2)
        let reader = try fixture.reader()
        for session in try reader.sessions() {
            let report = try Timeline(reader: reader, session: session.id).verify()
            #expect(report.passed, "session \(session.uuid) does not verify: \(String(describing: report.problem))",
                    sourceLocation: sourceLocation)
        }
        let control = try reader.session(named: uuid)
        #expect(control.lastSeq == sent - 1, sourceLocation: sourceLocation)
        #expect(try Timeline(reader: reader, session: control.id).state(at: sent - 1) == recording.state,
                sourceLocation: sourceLocation)
        if let attacker {
            let session = try reader.session(named: attacker.session)
            #expect((session.lastSeq ?? -1) >= attacker.throughSeq, "acked events of \(attacker.session) are missing",
                    sourceLocation: sourceLocation)
            _ = try Timeline(reader: reader, session: session.id).state(at: attacker.throughSeq)
        }
        app.close()
    }
}

@Suite("The hostile-input health check", .ownThreads)
struct HealthCheckTests {
    @Test("a server that stored an ordinary app's events passes the check, with that app as the attacker")
    func ordinaryAppPasses() throws {
        let fixture = try ServerFixture()
        let check = try HealthCheck(fixture)
        let uuid = UUID().uuidString
        let (app, _) = try fixture.helloApp(uuid)
        var recording = Recording()
        for event in recording.events(0..<5) { app.send(event) }
        #expect(app.waitForAck(4))
        try check.expectHealthy(alsoAcked: (uuid, 4))
        app.close()
    }
}
