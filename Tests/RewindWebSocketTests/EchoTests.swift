import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Echo between server and client", .ownThreads)
struct EchoTests {
    @Test("text and binary messages round-trip, the server can speak first, and a client close reaches the server")
    func roundTrip() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }
        let (client, delegate) = try connectClient(port: port)
        #expect(delegate.state.value.connected)

        #expect(client.send(text: "hello") == .enqueued)
        #expect(client.send(binary: [0, 1, 2, 255]) == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 2 })
        #expect(delegate.state.value.received == [WebSocketMessage(text: "hello"), .binary([0, 1, 2, 255])])

        let connection = try #require(serverDelegate.waitForConnection())
        #expect(connection.path == "/app")
        #expect(connection.subprotocol == "rewind.app.v1")
        #expect(connection.remoteAddress.hasPrefix("127.0.0.1:"))
        #expect(connection.send(text: "from the server") == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 3 })
        #expect(delegate.state.value.received.last?.string == "from the server")
        #expect(server.openConnectionCount == 1)

        client.close(code: .normal, reason: "done")
        #expect(delegate.state.wait { $0.closeCode != nil })
        #expect(delegate.state.value.closeCode == .normal)
        #expect(serverDelegate.state.wait { $0.closed[connection.id] != nil })
        #expect(serverDelegate.state.value.closed[connection.id] == .normal)
        #expect(connection.send(text: "too late") == .closed)
        #expect(client.waitUntilFinished(timeout: .seconds(10)))
        #expect(server.openConnectionCount == 0)
    }

    @Test("messages sent before the handshake completes are delivered after it")
    func queuedBeforeConnect() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }
        let client = try WebSocketClient(url: "ws://127.0.0.1:\(port)/inspect", subprotocol: "rewind.inspect.v1")
        #expect(client.send(text: "early") == .enqueued)
        let delegate = TestClientDelegate()
        try client.connect(delegate: delegate)
        #expect(delegate.state.wait { $0.received.count == 1 })
        // Sends after the connection opened still wake the service thread.
        #expect(client.send(text: "later") == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 2 })
        #expect(delegate.state.value.received == [WebSocketMessage(text: "early"), WebSocketMessage(text: "later")])
        #expect(throws: WebSocketError.alreadyStarted) { try client.connect(delegate: delegate) }
        client.close()
        #expect(client.waitUntilFinished(timeout: .seconds(10)))
    }
}
