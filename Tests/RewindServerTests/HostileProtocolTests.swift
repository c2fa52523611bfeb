import Foundation
import RewindJSON
import RewindServer
import RewindWire
import Testing
import RewindTestSupport

/// Issue 13, repros 10 and 11: the Host check, frames the docs say are refused, and event
/// members that contradict the data. Each runs against a real server, then the ``HealthCheck``.
extension HostileInput {
    @Suite("Hostile protocol details")
    struct HostileProtocolTests {
        @Test("repro 10: a Host that merely starts like loopback is refused; exact loopback names pass")
        func exactHostCheck() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let port = fixture.port
            let (path, proto) = (InspectorRequest.path, InspectorRequest.subprotocol)
            for host in ["[::1]evil.example", "[::1]:\(port)evil.example", "[::1]:", "[::1]x:\(port)", "localhost:",
                         "localhost:99999", "127.0.0.1:0", "127.0.0.1:\(port):\(port)", "localhost.evil.example", "[::1]]"] {
                #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto, host: host).status == 403, "\(host)")
                #expect(try HTTPResult.get("/export/latest", port: port, host: host).status == 421, "\(host)")
            }
            for host in ["[::1]", "[::1]:\(port)", "localhost", "localhost:\(port)", "127.0.0.1", "127.0.0.1:65535"] {
                #expect(try RawSocket(port: port).upgrade(path: path, port: port, subprotocol: proto, host: host).status == 101, "\(host)")
            }
            try check.expectHealthy()
        }

        @Test("repro 11: invalid UTF-8 in a text frame closes the connection with 1007, as documented",
              arguments: [[0xC3, 0x28], [0x7B, 0x22, 0xFF, 0x22, 0x7D], [0xED, 0xA0, 0x80]] as [[UInt8]])
        func invalidUTF8(payload: [UInt8]) throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            for (path, proto) in [(AppMessage.path, AppMessage.subprotocol), (InspectorRequest.path, InspectorRequest.subprotocol)] {
                let socket = try RawSocket(port: fixture.port)
                #expect(try socket.upgrade(path: path, port: fixture.port, subprotocol: proto).status == 101)
                try socket.sendFrame(opcode: 0x1, payload)
                #expect(socket.closeCode(timeout: 30) == 1007, "\(path)")
            }
            try check.expectHealthy()
        }

        @Test("repro 11: a binary frame closes the connection with 1003: the protocol is text only")
        func binaryFrames() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let (uuidApp, _) = (UUID().uuidString, 0)
            for (path, proto) in [(AppMessage.path, AppMessage.subprotocol), (InspectorRequest.path, InspectorRequest.subprotocol)] {
                let socket = try RawSocket(port: fixture.port)
                #expect(try socket.upgrade(path: path, port: fixture.port, subprotocol: proto).status == 101)
                // A well-formed hello, but as a binary frame: refused, not processed.
                try socket.sendFrame(opcode: 0x2, Array(hello(uuidApp).serialized(.compact).utf8))
                #expect(socket.closeCode(timeout: 30) == 1003, "\(path)")
            }
            try check.expectHealthy()
            #expect(throws: (any Error).self) { _ = try fixture.reader().session(named: uuidApp) }
        }

        @Test("an event's cause must be below its seq, and durationNs 0 or more", arguments: [
            (#""cause":5"#, "\"cause\" must be the seq of an earlier event, below this event's seq 5; got 5"),
            (#""cause":9"#, "\"cause\" must be the seq of an earlier event, below this event's seq 5; got 9"),
            (#""durationNs":-1"#, "\"durationNs\" must be a non-negative integer"),
            (#""durationNs":1e99999999999999999999"#, "\"durationNs\" must be a non-negative integer"),
            (#""cause":-1"#, "\"cause\" must be a non-negative integer"),
        ])
        func causeAndDuration(member: String, message: String) throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let (app, _) = try fixture.helloApp(UUID().uuidString)
            defer { app.close() }
            app.sendRaw(#"{"type":"event","seq":5,"at":1763700000,"action":{"type":"x"},"patch":[],"hash":"0000000000000000",\#(member)}"#)
            let error = try #require(app.waitFor(timeout: 30) { $0["type"] == "error" })
            #expect(error["code"] == "bad-message")
            #expect(error["message"] == .string("event: \(message)"))
            try check.expectHealthy()
        }
    }
}
