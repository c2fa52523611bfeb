import Foundation
import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Plain HTTP", .ownThreads)
struct HTTPTests {
    private static let bigBody = pseudoRandomBytes(count: 5 << 20 + 123, seed: 42)

    private static func responder(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/big.bin":
            HTTPResponse(contentType: "application/octet-stream", headers: ["Cache-Control": "no-store"], body: bigBody)
        case "/index.html":
            HTTPResponse(contentType: "text/html; charset=utf-8", body: Array("<h1>Rewind</h1>".utf8))
        case "/echo":
            .text("query=\(request.query) token=\(request.queryValue("token") ?? "-") ua=\(request.headers["user-agent"] ?? "-")")
        case "/empty":
            HTTPResponse(status: 204, body: [])
        default:
            .notFound
        }
    }

    @Test("GET returns status, content type, extra headers and a multi-MB body intact")
    func bigBody() throws {
        let delegate = TestServerDelegate(http: Self.responder)
        let (server, port) = try startServer(delegate)
        defer { server.shutdown() }
        let response = try HTTPExchange.request("/big.bin", port: port)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/octet-stream")
        #expect(response.headers["content-length"] == "\(Self.bigBody.count)")
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.headers["server"] == "rewind")
        #expect(response.body.count == Self.bigBody.count)
        // Compared as one Bool: on a mismatch, a diff of two 5 MiB arrays runs for hours.
        let intact = response.body == Self.bigBody
        #expect(intact, "first difference at byte \(zip(response.body, Self.bigBody).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(response.body.count, Self.bigBody.count))")
    }

    /// libwebsockets' own timeout for a request cut a body that took longer than 20 s in all to
    /// read: a 5 MiB one read 64 KiB every 300 ms lost its last megabyte. A body's timeout is
    /// now its reader's stall (ServerEngine.bodyStallSeconds), re-armed at every chunk.
    @Test("a reader that takes 24 s to read a 5 MiB body, a chunk at a time, gets all of it")
    func slowReader() throws {
        let delegate = TestServerDelegate(http: Self.responder)
        let (server, port) = try startServer(delegate)
        defer { server.shutdown() }
        let socket = try RawSocket(port: port, receiveBuffer: 64 << 10)
        try socket.write("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let count = chunk.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received.append(contentsOf: chunk[..<count])
            // Slower than the request's own timeout allows in all, never a stall.
            usleep(300_000)
        }
        let separator = Array("\r\n\r\n".utf8)
        let head = try #require(received.indices.first { received[$0...].starts(with: separator) }, "no response head in \(received.count) bytes")
        let body = Array(received[(head + 4)...])
        #expect(body.count == Self.bigBody.count)
        let intact = body == Self.bigBody
        #expect(intact)
    }

    @Test("small bodies, 404, 204, HEAD and a refused method")
    func variety() throws {
        let delegate = TestServerDelegate(http: Self.responder)
        let (server, port) = try startServer(delegate)
        defer { server.shutdown() }

        let page = try HTTPExchange.request("/index.html", port: port)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(String(decoding: page.body, as: UTF8.self) == "<h1>Rewind</h1>")

        let echo = try HTTPExchange.request("/echo?token=a%2Fb&x=1", port: port, extraHeaders: "User-Agent: tests\r\n")
        #expect(String(decoding: echo.body, as: UTF8.self) == "query=token=a/b&x=1 token=a/b ua=tests")

        #expect(try HTTPExchange.request("/missing", port: port).status == 404)
        let empty = try HTTPExchange.request("/empty", port: port)
        #expect(empty.status == 204)
        #expect(empty.body.isEmpty)

        let head = try HTTPExchange.request("/index.html", method: "HEAD", port: port)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "15")
        #expect(head.body.isEmpty)

        #expect(try HTTPExchange.request("/index.html", method: "DELETE", port: port).status == 405)
        #expect(delegate.state.value.httpRequests.map(\.method) == ["GET", "GET", "GET", "GET", "HEAD"])
    }

    @Test("a keep-alive connection serves several requests in turn")
    func keepAlive() throws {
        let delegate = TestServerDelegate(http: Self.responder)
        let (server, port) = try startServer(delegate)
        defer { server.shutdown() }
        let socket = try RawSocket(port: port)
        let request = "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        try socket.write(request + "\r\n" + request + "Connection: close\r\n\r\n")
        let raw = String(decoding: socket.readToEnd(), as: UTF8.self)
        #expect(raw.components(separatedBy: "<h1>Rewind</h1>").count == 3)
        #expect(delegate.state.value.httpRequests.count == 2)
    }

    @Test("several large responses in parallel all arrive intact")
    func parallel() async throws {
        let delegate = TestServerDelegate(http: Self.responder)
        let (server, port) = try startServer(delegate)
        defer { server.shutdown() }
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { try HTTPExchange.request("/big.bin", port: port).body == Self.bigBody }
            }
            return try await group.reduce(true) { $0 && $1 }
        }
        #expect(intact)
    }
}
