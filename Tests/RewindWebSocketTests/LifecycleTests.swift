import Foundation
import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Start and shutdown", .ownThreads)
struct LifecycleTests {
    @Test("shutdown closes every client with 1001, ends the thread and stops listening")
    func shutdownClosesClients() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        let (_, first) = try connectClient(port: port)
        let (_, second) = try connectClient(port: port, path: "/inspect", subprotocol: "rewind.inspect.v1")
        let connection = try #require(serverDelegate.waitForConnection(2))
        #expect(connection.send(text: "last words") == .enqueued)

        server.shutdown()
        #expect(!server.isRunning)
        #expect(server.port == nil)
        #expect(first.state.wait { $0.closeCode != nil })
        #expect(second.state.wait { $0.closeCode != nil })
        #expect(first.state.value.closeCode == .goingAway)
        #expect(second.state.value.closeCode == .goingAway)
        #expect(second.state.value.received == [WebSocketMessage(text: "last words")], "queued output drains first")
        #expect(Set(serverDelegate.state.value.closed.values) == [.goingAway])
        #expect(connection.send(text: "after") == .closed)

        let (_, late) = try connectClient(port: port)
        #expect(late.state.value.failure != nil)
        server.shutdown()  // twice is fine
    }

    @Test("shutdown drops a peer that never answers once the grace period is over")
    func shutdownGracePeriod() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate) { $0.shutdownGracePeriod = .milliseconds(300) }
        let silent = try RawSocket(port: port)
        #expect(statusCode(of: try silent.handshake(path: "/app", port: port, subprotocol: "rewind.app.v1")) == 101)
        let connection = try #require(serverDelegate.waitForConnection())
        let started = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(!server.isRunning)
        #expect(serverDelegate.state.value.closed[connection.id] == .goingAway)
    }

    @Test("starting on a port already in use throws a clear error")
    func portInUse() throws {
        let (first, port) = try startServer(TestServerDelegate())
        defer { first.shutdown() }
        let second = WebSocketServer(
            configuration: WebSocketServerConfiguration(port: port, endpoints: rewindEndpoints),
            delegate: TestServerDelegate()
        )
        let error = #expect(throws: WebSocketError.self) { try second.start() }
        guard case .cannotListen(let host, let failedPort, let reason)? = error else {
            Issue.record("expected cannotListen, got \(String(describing: error))")
            return
        }
        #expect(host == "127.0.0.1" && failedPort == port)
        #expect(reason.localizedCaseInsensitiveContains("in use"))
        #expect(error?.description == "cannot listen on 127.0.0.1:\(port): \(reason)")
        #expect(!second.isRunning)
    }

    @Test("start twice, and bad configurations, are refused")
    func refusedStarts() throws {
        let (server, _) = try startServer(TestServerDelegate())
        defer { server.shutdown() }
        #expect(throws: WebSocketError.alreadyStarted) { try server.start() }

        let duplicate = WebSocketServer(
            configuration: WebSocketServerConfiguration(endpoints: rewindEndpoints + [WebSocketEndpoint(path: "/app", subprotocol: "x")]),
            delegate: TestServerDelegate()
        )
        #expect(throws: WebSocketError.self) { try duplicate.start() }
        #expect(throws: WebSocketError.self) { try WebSocketClient(url: "http://127.0.0.1/app", subprotocol: nil) }
        #expect(throws: WebSocketError.self) { try WebSocketClient(url: "ftp://127.0.0.1/app", subprotocol: nil) }
    }

    @Test("a client to a port with nothing listening reports failure and its thread ends")
    func nothingListening() throws {
        // A socket bound but not listening holds a port nobody else can take, and refuses connections.
        let fd = socket(AF_INET, SocketType.stream, 0)
        defer { close(fd) }
        var address = RawSocket.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let (client, delegate) = try connectClient(port: port)
        #expect(!delegate.state.value.connected)
        #expect(delegate.state.value.failure?.isEmpty == false)
        #expect(client.waitUntilFinished(timeout: .seconds(10)))
        #expect(client.send(text: "nobody") == .closed)
    }

    @Test("closing a client before its handshake completes reports a failure")
    func closeWhileConnecting() throws {
        let (server, port) = try startServer(TestServerDelegate())
        defer { server.shutdown() }
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/app", subprotocol: "rewind.app.v1")
        client.close()
        let delegate = TestClientDelegate()
        try client.connect(delegate: delegate)
        #expect(delegate.state.wait { $0.isOver })
        #expect(delegate.state.value.failure != nil)
        #expect(client.waitUntilFinished(timeout: .seconds(10)))
    }
}
