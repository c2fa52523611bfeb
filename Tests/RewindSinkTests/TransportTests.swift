import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RewindServer
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// The two transports under the shared link, and what a developer is told when a connect fails.
@Suite("Server transports and connect failures", .serialized, .ownThreads)
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
        #expect(!(await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(1)) }))
        #expect(sink.connectAttempts == 1)
        #expect(!sink.isConnected)
        #expect(peer.state.sessions.isEmpty)
        #expect(reports.all == ["cannot connect to \(sink.url.absoluteString): \(failure)."])
        #expect(sink.lastConnectReport == reports.all.first)
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
        // Held for the whole test: a port let go could be another test's server a moment later
        // (CI once saw this sink reach one, "read failed").
        let reserved = try ReservedPort()
        defer { reserved.release() }
        let port = reserved.port
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
        #expect(sentence.contains("the server refused the token; set REWIND_TOKEN (or REWIND_APP_TOKEN) to the server's app token"), "\(sentence)")
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
        #expect(ConnectFailure(reason: "HS: ws upgrade response not 101 (HTTP 403)").kind == .wrongToken)
        // A port or address that holds "401" or "403" says nothing about tokens.
        #expect(ConnectFailure(reason: "Unable to connect to 127.0.0.1:54010").kind == .refused)
        #expect(ConnectFailure(reason: "read failed on 10.0.40.3:34031").kind == .other)
        #expect(ConnectFailure(reason: "cannot connect to ws://127.0.0.1:54030/app: timed out; is the Mac awake, on this network, and not blocking port 54030 in its firewall?").kind == .timedOut)
        #expect(ConnectFailure(reason: "host unreachable").kind == .unreachable)
        #expect(ConnectFailure(reason: "timed out").kind == .timedOut)
        #expect(ConnectFailure(reason: "URLSession cannot open WebSockets here (x); on Linux use …").kind == .unsupported)
        #expect(ConnectFailure(reason: "something else").kind == .other)
        let url = URL(string: "ws://192.168.1.20:7433/app")!
        #expect(ConnectFailure(reason: "timed out").sentence(url: url)
            == "cannot connect to ws://192.168.1.20:7433/app: timed out; is the Mac awake, on this network, and not blocking port 7433 in its firewall?")
    }

    @Test("addresses: ws gets /app; the browser's http://host:port/ means the same server and gives its token; others are one sentence")
    func addresses() throws {
        func resolved(_ text: String) throws -> (String, String?) {
            let result = try ServerAddress.resolve(URL(string: text)!).get()
            return (result.url.absoluteString, result.token)
        }
        #expect(try resolved("ws://127.0.0.1:7433") == ("ws://127.0.0.1:7433/app", nil))
        #expect(try resolved("ws://127.0.0.1:7433/app") == ("ws://127.0.0.1:7433/app", nil))
        #expect(try resolved("http://127.0.0.1:7433/") == ("ws://127.0.0.1:7433/app", nil))
        #expect(try resolved("http://192.168.1.20:7433/?token=3f9c") == ("ws://192.168.1.20:7433/app", "3f9c"))
        #expect(try resolved("wss://127.0.0.1:7433/app") == ("wss://127.0.0.1:7433/app", nil))
        #expect(try resolved("https://192.168.1.20:7433/?token=3f9c") == ("wss://192.168.1.20:7433/app", "3f9c"))
        let advice = "; write ws://HOST:PORT/app, the address `rewind serve` prints for apps"
        let problems = [
            ("ftp://127.0.0.1:7433/", "has the scheme ftp, not ws or wss"),
            ("ws://127.0.0.1:7433/inspect", "names the path /inspect; apps connect to /app"),
            ("http:///app", "names no host"),
        ]
        for (text, why) in problems {
            guard case .failure(let problem) = ServerAddress.resolve(URL(string: text)!) else {
                Issue.record("\(text) was taken")
                continue
            }
            #expect(problem.message == "\(text) \(why)\(advice)")
        }
    }

    @Test("the http:// address rewind serve prints for the browser, token included, streams like ws://")
    func browserAddressStreams() async throws {
        let directory = try TemporaryDirectory()
        var configuration = RewindServerConfiguration(logPath: directory.path("served.db"), port: 0)
        configuration.token = "pagetoken123"
        let server = try RewindServer(configuration: configuration)
        try server.start()
        defer { server.shutdown() }
        let printed = try #require(server.inspectorURL)
        #expect(printed.hasPrefix("http://127.0.0.1:") && printed.hasSuffix("/?token=pagetoken123"))
        let store = Store(initialState: AppState(), reducer: appReducer)
        let recorder = store.record(to: .server(URL(string: printed)!), app: "Todos")
        let sink = try #require(recorder.sinks.first as? ServerSink)
        #expect(sink.url.absoluteString == "ws://127.0.0.1:\(server.port!)/app")
        _ = try sendActions(5, to: store)
        #expect(await waitUntil(timeout: 20) { sink.isConnected && sink.unacknowledgedCount == 0 })
        recorder.stop()
    }

    @Test(".server with an unusable address is one sentence at record time, and the recording goes to the default log; an unreadable CA file is one sentence when the session begins")
    func unusableAddressFallsBack() throws {
        let reports = Reports()
        let sinks = RecordingDestination.server(URL(string: "ftp://127.0.0.1:7433/app")!).makeSinks(
            queueCapacity: 8, environment: ["REWIND_DB": "/tmp/fallback.db"], report: { reports.append($0) })
        #expect((sinks.first as? LogFileSink)?.path == "/tmp/fallback.db")
        #expect(reports.all == ["ftp://127.0.0.1:7433/app has the scheme ftp, not ws or wss; write ws://HOST:PORT/app, the address `rewind serve` prints for apps; recording to /tmp/fallback.db instead"])

        // REWIND_CA_FILE goes with .server; a ServerSink made directly with a CA file it cannot
        // read says so when the session begins, and sends nothing.
        let withCA = RecordingDestination.server(URL(string: "wss://127.0.0.1:7433/app")!).makeSinks(
            queueCapacity: 8, environment: ["REWIND_CA_FILE": "/nonexistent/ca.pem"], report: { reports.append($0) })
        #expect((withCA.first as? ServerSink)?.caFile == "/nonexistent/ca.pem")
        let direct = ServerSink(url: URL(string: "wss://mac.local/")!, caFile: "/nonexistent/ca.pem", report: { reports.append($0) })
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([direct]),
                                                     metadata: RecordingMetadata(app: "Todos"))
        recorder.record(.increment, state: AppState())
        recorder.stop()
        #expect(reports.all.count == 2)
        #expect(reports.all.last == "cannot read the CA file /nonexistent/ca.pem: there is no such file")
        #expect(direct.connectAttempts == 0)
        #expect(!direct.waitForAcknowledgements(timeout: .milliseconds(100)))
    }

    @Test("a server that accepts the connection but never answers: timed out within 2 s, said once; refused later is said again")
    func silentServerTimesOutThenRefused() async throws {
        let listener = try SilentListener()
        let reports = Reports()
        let sink = ServerSink(url: URL(string: "ws://127.0.0.1:\(listener.port)")!, report: { reports.append($0) })
        defer { sink.disconnect() }
        let store = Store(initialState: AppState(), reducer: appReducer)
        store.record(to: .sinks([sink]), app: "Todos")
        _ = try sendActions(1, to: store)
        #expect(await waitUntil(timeout: 20) { !reports.all.isEmpty })
        let first = try #require(reports.all.first)
        #expect(first == "cannot connect to ws://127.0.0.1:\(listener.port)/app: timed out (no answer within 2 s; still trying); is the Mac awake, on this network, and not blocking port \(listener.port) in its firewall?")
        // The listener goes away: the waiting attempt ends ("read failed") and the next ones are
        // refused. Each new reason is said once; retries with the same reason say nothing more.
        listener.close()
        func refusals() -> Int { reports.all.filter { $0.contains(": nothing accepted the connection (") }.count }
        #expect(await waitUntil(timeout: 60) { refusals() == 1 })
        let attempts = sink.connectAttempts
        #expect(await waitUntil(timeout: 60) { sink.connectAttempts >= attempts + 2 })
        #expect(refusals() == 1, "\(reports.all)")
        let kinds = reports.all.map { ConnectFailure(reason: $0).kind }
        #expect(zip(kinds, kinds.dropFirst()).allSatisfy { $0 != $1 }, "\(reports.all)")
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes the handshake, and the
/// upgrade request is never answered.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private var fd: Int32

    /// On a port below the ephemeral range (ReservedPort's): once it is closed, neither a
    /// `--port 0` server of another test nor a connection's local port lands on it, so the sink's
    /// next attempts are refused as the test expects (a full run once saw them reach another
    /// test's server on a port 0 listener's old port).
    init() throws {
        let start = Int.random(in: ReservedPort.range)
        for offset in 0..<512 {
            let candidate = ReservedPort.range.lowerBound + (start - ReservedPort.range.lowerBound + offset) % ReservedPort.range.count
            if let fd = Self.listen(on: candidate) {
                self.fd = fd
                self.port = candidate
                return
            }
        }
        throw POSIXError(.EADDRINUSE)
    }

    private static func listen(on port: Int) -> Int32? {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #if canImport(Glibc)
        guard bound == 0, Glibc.listen(fd, 8) == 0 else { _ = Glibc.close(fd); return nil }
        #else
        guard bound == 0, Darwin.listen(fd, 8) == 0 else { _ = Darwin.close(fd); return nil }
        #endif
        return fd
    }

    func close() {
        #if canImport(Glibc)
        if fd >= 0 { _ = Glibc.close(fd) }
        #else
        if fd >= 0 { _ = Darwin.close(fd) }
        #endif
        fd = -1
    }

    deinit { close() }
}
