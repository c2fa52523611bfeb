import Foundation
import RewindJSON
import RewindServer
import RewindWire
import Testing
import RewindTestSupport

/// The in-process harness the fuzzer drives answers like the real server.
@Suite("Server harness", .ownThreads)
struct ServerHarnessTests {
    @Test("an app's hello and events are stored and acked; an inspector's request is answered; bad input gets an error")
    func answersLikeTheServer() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.path("harness.db")
        let harness = try ServerHarness(logPath: path)
        let welcome = harness.app(Array(hello("harness-session").serialized(.compact).utf8))
        #expect(welcome.count == 1)
        #expect(try JSONValue(parsing: welcome[0])["type"] == "welcome")
        var recording = Recording()
        for event in recording.events(0..<3) { harness.app(Array(event.serialized(.compact).utf8)) }
        // Live pushes (the session started) come too; the reply is the one with the request's id.
        // The queries run on libdispatch's shared threads, which other suites' work can hold for
        // seconds on two cores: wait generously.
        let sessions = try harness.inspect(Array(#"{"type":"sessions","id":7}"#.utf8), timeout: 30).map { try JSONValue(parsing: $0) }
        let reply = try #require(sessions.first { $0["id"] == 7 })
        #expect(reply["sessions"]?.arrayValue?.first?["uuid"] == "harness-session")
        let error = harness.app(Array("{not json".utf8))
        #expect(error.count == 1)
        #expect(try JSONValue(parsing: error[0])["code"] == "bad-json")
        let state = try harness.inspect(Array(#"{"type":"state","id":8,"session":"harness-session","seq":2}"#.utf8), timeout: 30).map { try JSONValue(parsing: $0) }
        #expect(state.first { $0["id"] == 8 }?["value"] == recording.state)
    }
}
