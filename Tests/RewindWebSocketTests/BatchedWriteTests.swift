import RewindWebSocket
import Testing
import RewindTestSupport

/// A server connection writes small messages queued together as one run of frames it lays out
/// itself; these check the framing at every length boundary, and the order, against a real client.
@Suite("Batched writes from the server", .ownThreads)
struct BatchedWriteTests {
    /// Payload lengths around each header form (7-bit, 16-bit, 64-bit) and around the largest
    /// message that may open a batch (16 KiB with its header) and the batch's 64 KiB.
    static let lengths = [0, 1, 124, 125, 126, 127, 1_000, 16_379, 16_380, 16_381, 16_384, 40_000, 65_525, 65_535, 65_536, 70_000]

    /// A server, one inspector client connected to it, and the server's side of that connection.
    private struct Pair {
        let server: WebSocketServer
        let client: WebSocketClient
        let delegate: TestClientDelegate
        let connection: WebSocketConnection

        init() throws {
            let serverDelegate = TestServerDelegate()
            let (server, port) = try startServer(serverDelegate)
            self.server = server
            (client, delegate) = try connectClient(port: port, path: "/inspect", subprotocol: "rewind.inspect.v1")
            connection = try #require(serverDelegate.waitForConnection())
        }

        func close() {
            client.close()
            server.shutdown()
        }
    }

    @Test("a burst of text and binary messages of every header size arrives whole and in order; most left in batches")
    func burstArrivesWhole() throws {
        let pair = try Pair()
        defer { pair.close() }
        let (connection, delegate) = (pair.connection, pair.delegate)

        var expected: [WebSocketMessage] = []
        for round in 0..<40 {
            for (index, length) in Self.lengths.enumerated() {
                let bytes = pseudoRandomBytes(count: length, seed: UInt64(round * 100 + index + 1))
                // Text must be UTF-8: map the random bytes onto printable ASCII.
                let message: WebSocketMessage = (round + index) % 2 == 0
                    ? .text(bytes.map { 0x20 + $0 % 0x5F }) : .binary(bytes)
                expected.append(message)
            }
            // Many small ones between, the common case of live events.
            for small in 0..<30 {
                expected.append(.text(Array("{\"type\":\"event\",\"round\":\(round),\"n\":\(small)}".utf8)))
            }
        }
        for message in expected { #expect(connection.send(message) == .enqueued) }
        #expect(delegate.state.wait(timeout: .seconds(30)) { $0.received.count >= expected.count || $0.isOver })
        let received = delegate.state.value.received
        #expect(received.count == expected.count)
        if let mismatch = zip(received, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("message \(mismatch.offset) differs: \(mismatch.element.0.bytes.count) bytes received, \(mismatch.element.1.bytes.count) sent")
        }
        // The burst was queued faster than one write per wake-up drains it: batching took part.
        #expect(connection.batchedMessageCount > expected.count / 4, "\(connection.batchedMessageCount) of \(expected.count) batched")
        #expect(delegate.state.value.closeCode == nil)
    }

    @Test("a close requested after a burst goes out after every message of it")
    func closeAfterBurst() throws {
        let pair = try Pair()
        defer { pair.close() }
        let (connection, delegate) = (pair.connection, pair.delegate)
        let messages = (0..<500).map { WebSocketMessage.text(Array("message \($0)".utf8)) }
        for message in messages { #expect(connection.send(message) == .enqueued) }
        connection.close(code: .goingAway, reason: "done")
        #expect(delegate.state.wait(timeout: .seconds(30)) { $0.isOver })
        #expect(delegate.state.value.received == messages)
        #expect(delegate.state.value.closeCode == .goingAway)
    }
}
