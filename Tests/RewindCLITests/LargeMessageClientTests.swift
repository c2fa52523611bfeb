import Foundation
import RewindJSON
import RewindSupport
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

/// Issue 38, item 1: a server that sends a message past a client's limit (16 MiB) made every
/// client die inside libwebsockets (`rewind tail` with `free(): invalid next size`, `rewind push`
/// with SIGSEGV, a recording app with heap corruption): the client returned -1 from its receive
/// callback and libwebsockets went on parsing into the connection it had closed, when the message
/// came in one read with the handshake's answer. Each client here meets a server that answers its
/// upgrade with such a message in the same write (`HandshakeFloodServer`), and must close with
/// 1009 and go on.
@Suite("Clients and a message past their limit", .serialized, .ownThreads)
struct LargeMessageClientTests {
    /// 16 MiB and one byte more of JSON text: one byte past every client's limit.
    static let justTooLarge = 16 << 20 + 1

    /// A JSON object of `type` padded to `size` bytes.
    static func padded(_ fields: String, size: Int) -> String {
        let head = "{" + fields + ",\"pad\":\""
        return head + String(repeating: "a", count: max(0, size - head.utf8.count - 2)) + "\"}"
    }

    @Test("rewind tail, in each of its forms, closes with 1009 and goes on", arguments: [[], ["1"], ["--all"]])
    func tail(form: [String]) throws {
        let server = try HandshakeFloodServer(payload: Self.padded(#""type":"sessions","id":1"#, size: Self.justTooLarge))
        defer { server.stop() }
        let tail = try RunningCLI(["tail", "--server", "ws://127.0.0.1:\(server.port)"] + form)
        defer { tail.stop() }
        #expect(server.waitForClose(1009), "no 1009 from rewind tail \(form): \(tail.stderr)")
        // Still running, and says what happened; it connects again (it goes on).
        #expect(server.closes.wait(for: { $0.count >= 2 }, deadline: MonotonicClock.deadline(after: 30)), "\(tail.stderr)")
        tail.signal(SIGTERM)
        let status = tail.waitForExit()
        #expect(status != nil && !tail.stderr.contains("Program crashed") && !tail.stderr.contains("free()"), "\(tail.stderr)")
        #expect(tail.stderr.contains("1009"), "\(tail.stderr)")
    }

    @Test("rewind push: a welcome past the limit closes with 1009 and the session is said not delivered")
    func push() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let log = folder.path("device.db")
        let make = try CLIRunner.run(["import", "-", "--db", log, "--app", "Device"], stdin: Data(#"{"state":{"n":0},"at":1}\#n{"action":{"type":"inc"},"state":{"n":1},"at":2}\#n"#.utf8))
        #expect(make.status == 0, "\(make.stderr)")
        let server = try HandshakeFloodServer(payload: Self.padded(#""type":"welcome","id":1,"session":"x","nextSeq":0"#, size: Self.justTooLarge))
        defer { server.stop() }
        let push = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(server.port)", "--timeout", "5"])
        #expect(server.waitForClose(1009), "\(push.stdout) \(push.stderr)")
        #expect(push.status == 1, "status \(push.status): \(push.stdout) \(push.stderr)")
        #expect(push.stdout.contains("not delivered"), "\(push.stdout)")
    }

    @Test("a recording app: a command past the limit closes with 1009, and the app records on and exits on its own")
    func recordingApp() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        // Before the app's hello is answered: a 16 MiB + 1 command (a jump to a huge recorded state).
        let huge = try HandshakeFloodServer(payload: Self.padded(#""type":"command","id":"c1","kind":"jump","arguments":{"seq":1}"#, size: Self.justTooLarge))
        defer { huge.stop() }
        let app = try CLIRunner.run(["12", "finish"], program: CLIRunner.locate("RewindRecorderChild"), environment: [
            "REWIND_SERVER": "ws://127.0.0.1:\(huge.port)/app", "REWIND_OUTBOX": folder.path("outbox"), "REWIND_DB": folder.path("unused.db"),
        ])
        #expect(huge.waitForClose(1009), "\(app.stderr)")
        #expect(app.status == 0, "status \(app.status): \(app.stderr)")
        let result = try JSONValue(parsing: try #require(app.stdout.split(separator: "\n").dropFirst().first.map(String.init), "\(app.stdout) \(app.stderr)"))
        #expect(result["recorded"] == 13 && result["keptOnDevice"] == 13, "\(result)")
    }
}
