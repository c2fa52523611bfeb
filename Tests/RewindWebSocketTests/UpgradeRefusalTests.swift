import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Refused upgrades", .ownThreads)
struct UpgradeRefusalTests {
    /// Accepts only the server's own page as Origin, or no Origin at all (non-browser clients).
    private static func ownOriginOnly(port: Int) -> @Sendable (WebSocketUpgradeRequest) -> Bool {
        { request in request.origin == nil || request.origin == "http://127.0.0.1:\(port)" }
    }

    @Test("shouldAccept refusing by Origin gives the client a failure and the raw peer a 403")
    func refusedByOrigin() throws {
        let portBox = Recorder(0)
        let serverDelegate = TestServerDelegate(accept: { request in
            Self.ownOriginOnly(port: portBox.value)(request)
        })
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }
        portBox.update { $0 = port }

        let (_, refused) = try connectClient(port: port, origin: "http://evil.example")
        #expect(!refused.state.value.connected)
        #expect(refused.state.value.failure?.contains("101") == true, "lws' reason: \(refused.state.value.failure ?? "none")")
        #expect(serverDelegate.state.value.upgradeRequests.last?.origin == "http://evil.example")

        let raw = try RawSocket(port: port)
        let head = try raw.handshake(path: "/app", port: port, subprotocol: "rewind.app.v1", origin: "http://evil.example")
        #expect(statusCode(of: head) == 403)

        let (_, allowed) = try connectClient(port: port, origin: "http://127.0.0.1:\(port)")
        #expect(allowed.state.value.connected)
        // The server records the open on its own thread, possibly just after the client's.
        #expect(serverDelegate.waitForConnection() != nil)
        #expect(serverDelegate.state.value.opened.count == 1)
    }

    @Test("the delegate sees headers, query arguments and the remote address")
    func requestDetails() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate) { $0.customHeaderNames = ["x-rewind-token"] }
        defer { server.shutdown() }
        let (_, client) = try connectClient(
            port: port, path: "/inspect?token=a%20b&x=1", subprotocol: "rewind.inspect.v1",
            headers: ["Authorization": "Bearer secret", "Cookie": "k=v", "X-Rewind-Token": "t0k"]
        )
        #expect(client.state.value.connected)
        let request = try #require(serverDelegate.state.value.upgradeRequests.first)
        #expect(request.path == "/inspect")
        #expect(request.subprotocol == "rewind.inspect.v1")
        #expect(request.queryValue("token") == "a b")
        #expect(request.queryValue("x") == "1")
        #expect(request.headers["authorization"] == "Bearer secret")
        #expect(request.headers["Cookie"] == "k=v")
        #expect(request.headers["x-rewind-token"] == "t0k")
        #expect(request.host == "127.0.0.1:\(port)")
        #expect(request.remoteAddress.hasPrefix("127.0.0.1:"))
        let connection = try #require(serverDelegate.waitForConnection())
        #expect(connection.request == request)
    }

    @Test("a subprotocol that does not match the path, an unknown path, or no subprotocol is refused", arguments: [
        ("/app", "rewind.inspect.v1"),
        ("/inspect", "rewind.app.v1"),
        ("/app", "something.else"),
        ("/elsewhere", "rewind.app.v1"),
        ("/app", nil),
    ] as [(String, String?)])
    func mismatchRefused(path: String, subprotocol: String?) throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }

        let (_, client) = try connectClient(port: port, path: path, subprotocol: subprotocol)
        #expect(!client.state.value.connected)
        #expect(client.state.value.failure != nil)

        let raw = try RawSocket(port: port)
        let head = try raw.handshake(path: path, port: port, subprotocol: subprotocol)
        #expect([403, 404].contains(statusCode(of: head)), "got: \(head.prefix(40))")
        #expect(serverDelegate.state.value.opened.isEmpty)
        #expect(serverDelegate.state.value.upgradeRequests.isEmpty, "refused before the delegate is asked")
    }

    @Test("a client offering the right subprotocol after an unknown one is accepted")
    func offeredList() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }
        let raw = try RawSocket(port: port)
        let head = try raw.handshake(path: "/app", port: port, subprotocol: "chat, rewind.app.v1")
        #expect(statusCode(of: head) == 101)
        #expect(head.lowercased().contains("sec-websocket-protocol: rewind.app.v1"))
        #expect(serverDelegate.waitForConnection() != nil)
    }
}
