import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Large messages and the size limit", .ownThreads)
struct LargeMessageTests {
    @Test("a large message arrives whole and byte-identical, both ways", arguments: [1 << 20, 16 << 20])
    func largeRoundTrip(size: Int) throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate)
        defer { server.shutdown() }
        let (client, delegate) = try connectClient(port: port)
        #expect(delegate.state.value.connected)

        let binary = pseudoRandomBytes(count: size, seed: UInt64(size))
        let text = [UInt8]((0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        #expect(client.send(binary: binary) == .enqueued)
        #expect(client.send(.text(text)) == .enqueued)

        #expect(delegate.state.wait(timeout: .seconds(60)) { $0.received.count == 2 || $0.isOver })
        let received = delegate.state.value.received
        try #require(received.count == 2)
        #expect(received[0] == .binary(binary), "binary echo differs")
        #expect(received[1] == .text(text), "text echo differs")
        // The server saw each as one whole message too.
        #expect(serverDelegate.state.value.received.map { $0.message.bytes.count } == [size, size])
        client.close()
    }

    @Test("a message over maxMessageSize closes that connection with 1009; others carry on")
    func tooLarge() throws {
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startServer(serverDelegate) { $0.maxMessageSize = 64 * 1024 }
        defer { server.shutdown() }
        let (bystander, bystanderDelegate) = try connectClient(port: port, path: "/inspect", subprotocol: "rewind.inspect.v1")
        let (offender, offenderDelegate) = try connectClient(port: port)
        let offendingConnection = try #require(serverDelegate.waitForConnection(2))

        #expect(offender.send(binary: [UInt8](repeating: 7, count: 64 * 1024)) == .enqueued)  // exactly the limit: fine
        #expect(offenderDelegate.state.wait { $0.received.count == 1 })
        #expect(offender.send(binary: [UInt8](repeating: 7, count: 100 * 1024)) == .enqueued)

        #expect(offenderDelegate.state.wait { $0.closeCode != nil })
        #expect(offenderDelegate.state.value.closeCode == .messageTooLarge)
        #expect(serverDelegate.state.wait { $0.closed[offendingConnection.id] != nil })
        #expect(serverDelegate.state.value.closed[offendingConnection.id] == .messageTooLarge)
        #expect(serverDelegate.state.value.received.filter { $0.connection == offendingConnection.id }.count == 1)

        #expect(bystander.send(text: "still here") == .enqueued)
        #expect(bystanderDelegate.state.wait { $0.received.count == 1 })
        #expect(bystanderDelegate.state.value.closeCode == nil)
        let (_, latecomer) = try connectClient(port: port)
        #expect(latecomer.state.value.connected)
        #expect(server.isRunning)
    }
}
