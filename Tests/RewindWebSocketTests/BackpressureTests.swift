import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Bounded outgoing queue", .ownThreads)
struct BackpressureTests {
    @Test("a peer that never reads makes send report queueFull, and other connections carry on")
    func queueFullWhenPeerDoesNotRead() throws {
        let limits = WebSocketQueueLimits(maxMessages: 10_000, maxBytes: 1 << 20)
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate) { $0.queueLimits = limits }
        defer { server.shutdown() }

        let stuckPeer = try RawSocket(port: port, receiveBuffer: 4_096)
        let head = try stuckPeer.handshake(path: "/inspect", port: port, subprotocol: "rewind.inspect.v1")
        #expect(statusCode(of: head) == 101)
        let connection = try #require(serverDelegate.waitForConnection())

        // Keep offering until the queue has refused 10,000 times in a row: by then the service
        // thread has filled the kernel's buffers and the queue no longer drains.
        let payload = [UInt8](repeating: 0x5A, count: 64 * 1024)
        var accepted = 0
        var consecutiveRefusals = 0
        var results = Set<WebSocketSendResult>()
        // What the queue held right after each send. (Not read once at the end: if the service
        // thread had no core while the refusals piled up, it may still move the queue into the
        // kernel's buffers afterwards.)
        var mostQueued = 0
        var refusedWhileFull = false
        let deadline = ContinuousClock.now + .seconds(30)
        while consecutiveRefusals < 10_000, ContinuousClock.now < deadline {
            let result = connection.send(binary: payload)
            let queued = connection.queuedByteCount
            mostQueued = max(mostQueued, queued)
            results.insert(result)
            if result == .enqueued {
                accepted += 1
                consecutiveRefusals = 0
            } else {
                consecutiveRefusals += 1
                if queued > limits.maxBytes - payload.count { refusedWhileFull = true }
            }
        }
        #expect(results == [.enqueued, .queueFull])
        #expect(consecutiveRefusals == 10_000)
        #expect(mostQueued <= limits.maxBytes)
        #expect(refusedWhileFull, "refused, but never with the queue within one message of its limit")
        #expect(accepted * payload.count < 64 << 20, "kernel buffers plus the queue, not unbounded growth")
        #expect(connection.isOpen)

        let (client, delegate) = try connectClient(port: port)
        #expect(client.send(text: "unaffected") == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 1 })
        client.close()
    }
}
