import Foundation
import RewindJSON
import RewindWire
import Testing
import RewindTestSupport

/// `rewind tail --all` follows live sessions only: ended ones in the log are left alone, new ones
/// are taken up as they start, and each is dropped once it ends.
@Suite("rewind tail --all", .ownThreads)
struct TailAllTests {
    @Test("with an ended and a live session in the log, prints only the live one's events, drops it when it ends, takes up a new one")
    func liveSessionsOnly() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        // A session that ended before tail starts: streamed, ended (recorded in the log), then
        // its app went away.
        let endedUUID = UUID().uuidString
        let old = try StreamingApp(port: server.port)
        #expect(old.hello(session: endedUUID) == 0)
        for seq in Int64(0)..<3 { old.send(TwoTypeRecording.event(seq)) }
        #expect(old.waitForAck(2))
        old.send(AppMessage.end(id: 2).json)
        #expect(Self.waitUntilEnded(endedUUID, db: server.db), "the server never recorded the end of \(endedUUID)")
        old.client.close(code: .normal)
        #expect(old.waitForClose())

        let liveUUID = UUID().uuidString
        let live = try StreamingApp(port: server.port)
        #expect(live.hello(session: liveUUID) == 0)
        for seq in Int64(0)..<3 { live.send(TwoTypeRecording.event(seq)) }
        #expect(live.waitForAck(2))

        let tail = try RunningCLI(["tail", "--all", "--json", "--server", server.url])
        defer { tail.stop() }
        #expect(tail.waitForError("following every session: 1 live now"), "stderr: \(tail.stderr)")
        for seq in Int64(3)..<6 { live.send(TwoTypeRecording.event(seq)) }
        #expect(live.waitForAck(5))
        #expect(tail.waitForLines(3), "stdout: \(tail.stdout)")

        // The live session ends: tail says it no longer follows it.
        live.client.close(code: .normal)
        #expect(live.waitForClose())
        #expect(tail.waitForError("session \(liveUUID) (CLI test) ended; no longer following it"), "stderr: \(tail.stderr)")

        // A session that starts afterwards is followed from seq 0.
        let newUUID = UUID().uuidString
        let fresh = try StreamingApp(port: server.port)
        #expect(fresh.hello(session: newUUID) == 0)
        for seq in Int64(0)..<2 { fresh.send(TwoTypeRecording.event(seq)) }
        #expect(fresh.waitForAck(1))
        #expect(tail.waitForLines(5), "stdout: \(tail.stdout)")
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)

        let printed = try jsonLines(tail.stdout)
        func seqs(_ uuid: String) -> [JSONValue?] { printed.filter { $0["session"] == .string(uuid) }.map { $0["seq"] } }
        #expect(seqs(endedUUID).isEmpty)
        #expect(seqs(liveUUID) == (3..<6).map { .number(JSONNumber(Int64($0))) })
        #expect(seqs(newUUID) == (0..<2).map { .number(JSONNumber(Int64($0))) })
        #expect(printed.count == 5)
        #expect(!tail.stderr.contains(endedUUID))
    }

    /// Polls `rewind sessions --json` until the session has an end time, for at most 20 s.
    static func waitUntilEnded(_ uuid: String, db: String) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            if let result = try? CLIRunner.run(["sessions", "--json", "--db", db]),
               let sessions = try? jsonLines(result.stdout),
               sessions.contains(where: { $0["uuid"] == .string(uuid) && $0["endedAt"] != .null && $0["endedAt"] != nil }) {
                return true
            }
        }
        return false
    }
}
