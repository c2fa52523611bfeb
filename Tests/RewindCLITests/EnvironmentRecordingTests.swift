import Foundation
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

/// An app whose code names no destination records where its environment says: REWIND_SERVER
/// (with REWIND_TOKEN) to a real `rewind serve`, else the default log. The app is a real process
/// (`RewindRecorderChild`, built on RewindRecorder alone) with a real environment.
@Suite("REWIND_SERVER and REWIND_TOKEN from an app's environment", .ownThreads)
struct EnvironmentRecordingTests {
    static let child = CLIRunner.locate("RewindRecorderChild")

    /// The lines a recorder child wrote to stderr, but for the first attempt's "no answer within
    /// 2 s; still trying" notice: true when it is said, and a loaded machine (a TLS handshake
    /// with both processes waiting for the CPU) can take that long to be welcomed. Whether the
    /// events arrived is checked apart.
    static func unexpectedStderr(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { !$0.contains("timed out (no answer within 2 s; still trying)") }
    }

    @Test("REWIND_SERVER and REWIND_TOKEN stream the session to a rewind serve that requires the token")
    func streamsToTheNamedServer() throws {
        let server = try TailCommandTests.Server(token: "env-secret")
        defer { server.cleanup() }
        let fallback = server.dir.url.appendingPathComponent("fallback.db").path
        let run = try CLIRunner.run(["12"], program: Self.child, environment: [
            "REWIND_SERVER": "ws://127.0.0.1:\(server.port)/app", "REWIND_TOKEN": "env-secret", "REWIND_DB": fallback,
        ])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(Self.unexpectedStderr(run.stderr).isEmpty, "\(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The child exits once its `end` has left it; the server stores the end a moment later.
        let reader = try LogReader(path: server.db)
        var session = try reader.session(named: uuid)
        let deadline = Date(timeIntervalSinceNow: 30)
        while session.endedAt == nil, Date() < deadline {
            usleep(10_000)
            session = try reader.session(named: uuid)
        }
        #expect(session.app == "RecorderChild")
        #expect(session.lastSeq == 12)
        #expect(session.endedAt != nil)
        let state = try CLIRunner.run(["state", "\(uuid)@last", "--db", server.db])
        #expect(try JSONValue(parsing: state.stdout)["total"] == .number(JSONNumber(78)))
        #expect(!FileManager.default.fileExists(atPath: fallback))
    }

    @Test("a malformed REWIND_SERVER gets one sentence naming the variable, and the session goes to the default log",
          arguments: [
              ("http://127.0.0.1:7433/app", "is an http URL, and the recorder needs the WebSocket address"),
              ("ftp://192.168.1.20:7433/app", "has the scheme ftp, not ws or wss"),
              ("ws://", "names no host"),
          ])
    func malformedServerFallsBack(value: String, why: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let log = directory.url.appendingPathComponent("default.db").path
        let run = try CLIRunner.run(["5"], program: Self.child, environment: ["REWIND_SERVER": value, "REWIND_DB": log])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr == "rewind: REWIND_SERVER=\(value) \(why); write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it; recording to \(log) instead\n")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try LogReader(path: log).session(named: uuid).lastSeq == 5)
    }

    @Test("no REWIND_SERVER: the session goes to the default log, quietly")
    func unsetWritesTheDefaultLog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let log = directory.url.appendingPathComponent("nested/default.db").path
        var environment = ["REWIND_DB": log]
        environment["REWIND_SERVER"] = ""
        let run = try CLIRunner.run(["3"], program: Self.child, environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.isEmpty)
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try LogReader(path: log).session(named: uuid).lastSeq == 3)
    }
}
