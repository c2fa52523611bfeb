import Foundation
import RewindLog
import Testing
import RewindTestSupport

/// An app that exits right after recording (a CLI tool, a test, a script) loses nothing: the exit
/// hook writes what is queued, ends the sessions, and gives servers a bounded time to take them.
@Suite("Exiting right after recording", .ownThreads)
struct ExitTests {
    @Test("returning from main or calling exit() at once: every event is in the log file and the session is ended",
          arguments: ["return", "exit"])
    func fileKeepsEverything(mode: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let log = directory.url.appendingPathComponent("app.db").path
        let run = try CLIRunner.run(["40", mode], program: EnvironmentRecordingTests.child, environment: ["REWIND_DB": log])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try LogReader(path: log).session(named: uuid)
        #expect(session.lastSeq == 40)
        #expect(session.endedAt != nil)
    }

    @Test("returning from main while streaming: the server has every event and the session's end")
    func serverGetsTheEnd() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let run = try CLIRunner.run(["40", "return"], program: EnvironmentRecordingTests.child,
                                    environment: ["REWIND_SERVER": "ws://127.0.0.1:\(server.port)/app"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The server stores `end` as it handles it: wait for it, with a deadline.
        let deadline = Date(timeIntervalSinceNow: 20)
        var session = try LogReader(path: server.db).session(named: uuid)
        while session.endedAt == nil, Date() < deadline {
            usleep(20_000)
            session = try LogReader(path: server.db).session(named: uuid)
        }
        #expect(session.lastSeq == 40)
        #expect(session.endedAt != nil, "the session is still live")
    }
}
