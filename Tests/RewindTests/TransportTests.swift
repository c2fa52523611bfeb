import Foundation
import RewindServer
import Testing
@testable import Rewind
@testable import RewindRecorder

/// Collects what a sink reports about failed connects.
final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var all: [String] { lock.withLock { lines } }
}

/// The two transports under the shared link, and what a developer is told when a connect fails.
@Suite("Server transports and connect failures", .serialized)
@MainActor
struct TransportTests {
    #if os(Linux)
    @Test("the URLSession transport on Linux fails at once, in one sentence, without retrying or hanging")
    func urlSessionFailsClearlyOnLinux() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let reports = Reports()
        let sink = ServerSink(url: peer.url, transport: .urlSession, report: { reports.append($0) })
        #expect(sink.transport.resolved == .urlSession)
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(3, to: store)
        #expect(await waitUntil(timeout: 10) { sink.lastConnectFailure != nil })
        let failure = try #require(sink.lastConnectFailure)
        #expect(failure.hasPrefix("URLSession cannot open WebSockets here ("), "\(failure)")
        #expect(failure.hasSuffix("on Linux use ServerTransport.automatic or .libwebsockets"), "\(failure)")
        // Given up after the one attempt: nothing to wait for, nothing reached the server.
        #expect(sink.connectAttempts == 1)
        #expect(!sink.waitForAcknowledgements(timeout: .seconds(1)))
        #expect(sink.connectAttempts == 1)
        #expect(!sink.isConnected)
        #expect(peer.state.sessions.isEmpty)
        #expect(reports.all == ["cannot connect to \(sink.url.absoluteString): \(failure)."])
        recorder.stop()
    }

    @Test("automatic is libwebsockets on Linux")
    func automaticOnLinux() {
        #expect(ServerTransport.automatic.resolved == .libwebsockets)
        #expect(ServerSink(url: URL(string: "ws://127.0.0.1:1")!, report: nil).transport == .automatic)
    }
    #endif

    @Test("nothing listening: one sentence saying the connection was refused, reported once while the sink retries")
    func refusedIsReportedOnce() async throws {
        let probe = try ProtocolPeer()
        let port = probe.port
        probe.shutdown()
        let reports = Reports()
        let url = URL(string: "ws://127.0.0.1:\(port)")!
        let sink = ServerSink(url: url, report: { reports.append($0) })
        defer { sink.disconnect() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(2, to: store)
        #expect(await waitUntil(timeout: 20) { sink.connectAttempts >= 3 })
        #expect(reports.all.count == 1)
        let sentence = try #require(reports.all.first)
        #expect(sentence.hasPrefix("cannot connect to ws://127.0.0.1:\(port)/app: nothing accepted the connection ("), "\(sentence)")
        #expect(sentence.hasSuffix("); is `rewind serve` running there (on a device, use the Mac's address that `rewind serve --lan` prints)?"), "\(sentence)")
        #expect(ConnectFailure(reason: try #require(sink.lastConnectFailure)).kind == .refused)
    }

    @Test("a wrong token: one sentence saying the server refused the token; the right one streams")
    func wrongTokenIsNamed() async throws {
        let directory = try TemporaryDirectory()
        var configuration = RewindServerConfiguration(logPath: directory.path("served.db"), port: 0)
        configuration.token = "right-token"
        let server = try RewindServer(configuration: configuration)
        try server.start()
        defer { server.shutdown() }
        let url = URL(string: "ws://127.0.0.1:\(server.port!)")!

        let reports = Reports()
        let wrong = ServerSink(url: url, token: "wrong-token", report: { reports.append($0) })
        defer { wrong.disconnect() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.record(to: .sinks([wrong]), app: "Todos")
        _ = try sendActions(2, to: store)
        #expect(await waitUntil(timeout: 20) { !reports.all.isEmpty })
        let sentence = try #require(reports.all.first)
        #expect(sentence.contains("the server refused the token; set REWIND_TOKEN to the token `rewind serve` printed"), "\(sentence)")
        #expect(!wrong.isConnected)

        let right = ServerSink(url: url, token: "right-token", report: { reports.append("right: \($0)") })
        let other = Store(initialState: AppState(), reducer: appReducer)
        let recorder = other.record(to: .sinks([right]), app: "Todos")
        _ = try sendActions(3, to: other)
        #expect(await waitUntil(timeout: 20) { right.isConnected && right.unacknowledgedCount == 0 })
        #expect(!reports.all.contains { $0.hasPrefix("right:") })
        recorder.stop()
    }

    @Test("failures are sorted into refused, unreachable, timed out, a wrong token and unsupported")
    func failureKinds() {
        #expect(ConnectFailure(reason: "connection refused").kind == .refused)
        #expect(ConnectFailure(reason: "Unable to connect.").kind == .refused)
        #expect(ConnectFailure(reason: "HTTP 401: the server refused the token").kind == .wrongToken)
        #expect(ConnectFailure(reason: "host unreachable").kind == .unreachable)
        #expect(ConnectFailure(reason: "timed out").kind == .timedOut)
        #expect(ConnectFailure(reason: "URLSession cannot open WebSockets here (x); on Linux use …").kind == .unsupported)
        #expect(ConnectFailure(reason: "something else").kind == .other)
        let url = URL(string: "ws://192.168.1.20:7433/app")!
        #expect(ConnectFailure(reason: "timed out").sentence(url: url)
            == "cannot connect to ws://192.168.1.20:7433/app: timed out; is the Mac awake, on this network, and not blocking port 7433 in its firewall?")
    }
}
