import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Idle pings and hang-up", .ownThreads)
struct KeepAliveTests {
    @Test("a peer that never answers pings is hung up after the idle limit")
    func silentPeerIsHungUp() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate) {
            $0.keepAlive = WebSocketKeepAlive(pingAfterSeconds: 1, hangUpAfterSeconds: 2)
        }
        defer { server.shutdown() }
        let silent = try RawSocket(port: port)
        #expect(statusCode(of: try silent.handshake(path: "/app", port: port, subprotocol: "rewind.app.v1")) == 101)
        let connection = try #require(serverDelegate.waitForConnection())
        let opened = ContinuousClock.now

        // A real client answers the pings and stays.
        let (_, client) = try connectClient(port: port, path: "/inspect", subprotocol: "rewind.inspect.v1") {
            $0.keepAlive = WebSocketKeepAlive(pingAfterSeconds: 1, hangUpAfterSeconds: 2)
        }
        #expect(client.state.value.connected)

        #expect(serverDelegate.state.wait(timeout: .seconds(15)) { $0.closed[connection.id] != nil })
        let elapsed = ContinuousClock.now - opened
        #expect(elapsed >= .seconds(1), "hung up only after being idle")
        #expect(serverDelegate.state.value.closed[connection.id] == .abnormalClosure)
        // The answering client outlives several idle limits: its pongs prove it alive.
        let clientClosed = client.state.wait(timeout: .seconds(5)) { $0.closeCode != nil }
        #expect(!clientClosed, "a client that answers pings must not be hung up")
        #expect(serverDelegate.state.value.closed.count == 1)
    }
}
