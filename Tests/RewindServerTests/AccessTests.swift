import Foundation
import RewindServer
import RewindWire
import Testing
import RewindTestSupport

@Suite("Safe by default", .ownThreads)
struct AccessTests {
    @Test("a WebSocket from a foreign Origin is refused; the server's own page and apps are not")
    func origin() throws {
        let fixture = try ServerFixture()
        let port = fixture.port
        let foreign = try RawSocket(port: port).upgrade(path: "/inspect", port: port, subprotocol: InspectorRequest.subprotocol,
                                                        headers: ["Origin: http://evil.example"])
        #expect(foreign.status == 403)
        let otherPort = try RawSocket(port: port).upgrade(path: "/app", port: port, subprotocol: AppMessage.subprotocol,
                                                          headers: ["Origin: http://127.0.0.1:1"])
        #expect(otherPort.status == 403)
        let own = try RawSocket(port: port).upgrade(path: "/inspect", port: port, subprotocol: InspectorRequest.subprotocol,
                                                    headers: ["Origin: http://127.0.0.1:\(port)"])
        #expect(own.status == 101)
        let app = try RawSocket(port: port).upgrade(path: "/app", port: port, subprotocol: AppMessage.subprotocol)
        #expect(app.status == 101)
    }

    @Test("with a token, every upgrade and page needs it")
    func token() throws {
        let web = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: web) }
        try Data("<html>inspector</html>".utf8).write(to: web.appendingPathComponent("index.html"))
        let fixture = try ServerFixture {
            $0.token = "s3cret-token"
            $0.webDirectory = web.path
        }
        let port = fixture.port
        let path = InspectorRequest.path, proto = InspectorRequest.subprotocol
        #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto).status == 403)
        #expect(try RawSocket(port: port).upgrade(path: path + "?token=wrong", port: port, subprotocol: proto).status == 403)
        #expect(try RawSocket(port: port).upgrade(path: path + "?token=s3cret-token", port: port, subprotocol: proto).status == 101)
        #expect(try RawSocket(port: port).upgrade(path: "/app", port: port, subprotocol: AppMessage.subprotocol,
                                                  headers: ["Authorization: Bearer s3cret-token"]).status == 101)
        #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto,
                                                  headers: ["Cookie: a=b; rewind_token=s3cret-token"]).status == 101)

        #expect(try HTTPResult.get("/", port: port).status == 401)
        let page = try HTTPResult.get("/?token=s3cret-token", port: port)
        #expect(page.status == 200)
        #expect(page.body == "<html>inspector</html>")
        let cookie = try #require(page.header("set-cookie"))
        #expect(cookie.hasPrefix("rewind_token=s3cret-token"))
        #expect(cookie.contains("HttpOnly"))
        #expect(try HTTPResult.get("/", port: port, headers: ["Cookie: rewind_token=s3cret-token"]).status == 200)
    }

    @Test("without a token, only requests for a loopback host are answered (no DNS rebinding)")
    func loopbackHostOnly() throws {
        let fixture = try ServerFixture()
        let port = fixture.port
        let (path, proto) = (InspectorRequest.path, InspectorRequest.subprotocol)
        for host in ["evil.example:\(port)", "127.0.0.1.evil.example", "10.0.0.7:\(port)", "[::2]:\(port)", ""] {
            #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto, host: host).status == 403, "\(host)")
            let page = try HTTPResult.get("/export/latest", port: port, host: host)
            #expect(page.status == 421, "\(host)")
            #expect(page.body.contains("127.0.0.1, localhost or [::1]"))
        }
        // The rebinding page's own origin matches its Host: still refused.
        #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto,
                                                  headers: ["Origin: http://evil.example:\(port)"],
                                                  host: "evil.example:\(port)").status == 403)
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "127.1.2.3"] {
            #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto, host: host).status == 101, "\(host)")
        }
        #expect(try HTTPResult.get("/export/latest", port: port, host: "localhost:\(port)").status == 404)
    }

    @Test("a non-loopback address without a token is refused before listening")
    func nonLoopback() throws {
        let configuration = RewindServerConfiguration(logPath: "/nonexistent/never-written.db", host: "0.0.0.0", port: 0)
        #expect(throws: RewindServerError.self) { _ = try RewindServer(configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/never-written.db"))
        var withToken = configuration
        withToken.token = "t"
        #expect(throws: Never.self) { _ = try RewindServer(configuration: withToken) }
    }
}
