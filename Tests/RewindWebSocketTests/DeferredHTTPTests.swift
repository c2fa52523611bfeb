import Foundation
import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Deferred HTTP responses", .ownThreads)
struct DeferredHTTPTests {
    private static let bigBody = pseudoRandomBytes(count: 3 << 20 + 77, seed: 7)

    /// A server whose paths in `deferred` answer with a deferred response held by their gate;
    /// `/quick` answers at once.
    private static func startGatedServer(_ deferred: [String: (gate: ProducerGate, body: [UInt8])]) throws -> (WebSocketServer, Int) {
        let delegate = TestServerDelegate(http: { request in
            if request.path == "/quick" { return .text("quick") }
            guard let (gate, body) = deferred[request.path] else { return .notFound }
            var response = HTTPResponse.deferred {
                gate.pass()
                return HTTPResponse(status: 201, contentType: "application/x-test", headers: ["Cache-Control": "no-store"], body: body)
            }
            response.headers.add("X-Added-Outside", "yes")
            return response
        })
        return try startServer(delegate)
    }

    @Test("while a response is produced the server echoes and answers others; then it arrives whole")
    func serviceThreadStaysFree() throws {
        let gate = ProducerGate()
        let (server, port) = try Self.startGatedServer(["/slow": (gate, Self.bigBody)])
        defer { server.shutdown() }
        let slow = BackgroundRequest("/slow", port: port)
        #expect(gate.state.wait { $0.started == 1 })

        let (client, delegate) = try connectClient(port: port)
        #expect(delegate.state.value.connected)
        #expect(client.send(text: "still here?") == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 1 })
        #expect(delegate.state.value.received.first?.string == "still here?")
        #expect(try HTTPExchange.request("/quick", port: port).body == Array("quick".utf8))
        #expect(!slow.state.value.isDone, "nothing is sent before the producer returns")

        gate.release()
        #expect(slow.state.wait(timeout: .seconds(30)) { $0.isDone })
        let response = try #require(slow.state.value.response)
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/x-test")
        #expect(response.headers["content-length"] == "\(Self.bigBody.count)")
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.headers["x-added-outside"] == "yes")
        #expect(response.body.count == Self.bigBody.count)
        #expect(response.body == Self.bigBody)
        client.close()
        #expect(client.waitUntilFinished(timeout: .seconds(10)))
    }

    @Test("HEAD of a deferred response has the produced headers and no body")
    func head() throws {
        let gate = ProducerGate()
        gate.release()
        let (server, port) = try Self.startGatedServer(["/slow": (gate, Self.bigBody)])
        defer { server.shutdown() }
        let response = try HTTPExchange.request("/slow", method: "HEAD", port: port)
        #expect(response.status == 201)
        #expect(response.headers["content-length"] == "\(Self.bigBody.count)")
        #expect(response.headers["x-added-outside"] == "yes")
        #expect(response.body.isEmpty)
        #expect(gate.state.value.finished == 1)
    }

    @Test("a response finished after its client left goes nowhere; later requests get their own")
    func clientLeftEarly() throws {
        let first = ProducerGate()
        let second = ProducerGate()
        let secondBody = Array("the second response".utf8)
        let (server, port) = try Self.startGatedServer(["/first": (first, Self.bigBody), "/second": (second, secondBody)])
        defer { server.shutdown() }

        do {
            let leaving = try RawSocket(port: port)
            try leaving.write("GET /first HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            #expect(first.state.wait { $0.started == 1 })
            // Linger 0: closing resets the connection, so the server's write of the late
            // response fails (lws 4.1 notices a gone client of a pending request only then).
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(leaving.fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            withExtendedLifetime(leaving) {}
        }

        // Another connection waits for its own response while the first one is handed over to
        // the dead connection; it must get only its own, and the server must keep serving.
        let next = BackgroundRequest("/second", port: port)
        #expect(second.state.wait { $0.started == 1 })
        first.release()
        #expect(first.state.wait { $0.finished == 1 })
        second.release()
        #expect(next.state.wait(timeout: .seconds(30)) { $0.isDone })
        #expect(next.state.value.response?.status == 201)
        #expect(next.state.value.response?.body == secondBody)
        #expect(try HTTPExchange.request("/quick", port: port).status == 200)
        #expect(server.isRunning)
    }

    @Test("shutdown while a response is produced returns; the late response is dropped")
    func shutdownWhileProducing() throws {
        let gate = ProducerGate()
        let (server, port) = try Self.startGatedServer(["/slow": (gate, Self.bigBody)])
        let slow = BackgroundRequest("/slow", port: port)
        #expect(gate.state.wait { $0.started == 1 })

        let stopped = Recorder(false)
        let stopper = Thread {
            server.shutdown()
            stopped.update { $0 = true }
        }
        stopper.start()
        #expect(stopped.wait { $0 }, "shutdown does not wait for the producer")
        #expect(!server.isRunning)
        #expect(slow.state.wait { $0.isDone })
        #expect(slow.state.value.response == nil, "the connection closed without a response")

        gate.release()
        #expect(gate.state.wait { $0.finished == 1 })
    }
}
