import Foundation
import RewindJSON
import RewindWire
import Testing
import RewindTestSupport

/// `rewind tail SESSION` on a session that has ended, or that ends while it is followed: said on
/// stderr, exit 0; `--wait` waits for the app to resume it instead.
@Suite("rewind tail, ended sessions", .ownThreads)
struct TailEndedTests {
    /// A session streamed to `server` (seqs `0..<count`), then ended with `end` and its app gone.
    static func endedSession(_ server: TailCommandTests.Server, count: Int64) throws -> String {
        let uuid = UUID().uuidString
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        for seq in Int64(0)..<count { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(count - 1))
        app.send(AppMessage.end(id: 2).json)
        #expect(TailAllTests.waitUntilEnded(uuid, db: server.db), "the server never recorded the end of \(uuid)")
        app.client.close(code: .normal)
        #expect(app.waitForClose())
        return uuid
    }

    @Test("a session that has ended: tail says so and exits 0; with --wait it follows the session once its app resumes it")
    func endedSession() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let uuid = try Self.endedSession(server, count: 5)

        for name in ["latest", uuid] {
            let tail = try RunningCLI(["tail", name, "--server", server.url])
            defer { tail.stop() }
            #expect(tail.waitForExit() == 0, "\(name): stderr: \(tail.stderr)")
            #expect(tail.stderr.contains("session \(uuid) (CLI test) ended at "), "\(tail.stderr)")
            #expect(tail.stderr.contains("at seq 4; nothing more will come (--wait waits for its app to resume it)"), "\(tail.stderr)")
            #expect(tail.stdout.isEmpty)
        }

        let waiting = try RunningCLI(["tail", uuid, "--wait", "--json", "--server", server.url])
        defer { waiting.stop() }
        // Said once it has subscribed: what the app sends from now on is printed.
        #expect(waiting.waitForError("session \(uuid) (CLI test) ended at "), "\(waiting.stderr)")
        #expect(waiting.waitForError("at seq 4; waiting for its app to resume it"), "\(waiting.stderr)")
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 5)
        for seq in Int64(5)..<8 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(7))
        #expect(waiting.waitForLines(3), "stdout: \(waiting.stdout)\nstderr: \(waiting.stderr)")
        // --wait outlasts another end too.
        app.send(AppMessage.end(id: 3).json)
        #expect(TailAllTests.waitUntilEnded(uuid, db: server.db))
        waiting.signal(SIGINT)
        #expect(waiting.waitForExit() == 0)
        #expect(try jsonLines(waiting.stdout).map { $0["seq"] } == (5..<8).map { .number(JSONNumber(Int64($0))) })
        #expect(!waiting.stderr.contains("no longer following"), "\(waiting.stderr)")
    }

    @Test("the session followed ends: its last events are printed, then tail says so and exits 0")
    func followedSessionEnds() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let tail = try RunningCLI(["tail", String(uuid.prefix(13)), "--json", "--server", server.url])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for session \(uuid.prefix(13)) to start"))
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        for seq in Int64(0)..<6 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(5))
        // Gone without `end` is not the end: the app may come back.
        app.client.close(code: .normal)
        #expect(app.waitForClose())
        #expect(tail.waitForLines(6), "stdout: \(tail.stdout)")
        #expect(tail.waitForExit(timeout: 1) == nil, "tail stopped on a disconnect: \(tail.stderr)")

        let back = try StreamingApp(port: server.port)
        #expect(back.hello(session: uuid) == 6)
        for seq in Int64(6)..<8 { back.send(TwoTypeRecording.event(seq)) }
        #expect(back.waitForAck(7))
        back.send(AppMessage.end(id: 2).json)
        #expect(tail.waitForExit() == 0, "stderr: \(tail.stderr)")
        #expect(try jsonLines(tail.stdout).map { $0["seq"] } == (0..<8).map { .number(JSONNumber(Int64($0))) })
        #expect(tail.stderr.contains("session \(uuid) (CLI test) ended; no longer following it"), "\(tail.stderr)")
    }
}
