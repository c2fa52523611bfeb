import Foundation
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

/// `rewind replay` piped: each event's header and changes, checked against `rewind log` and
/// `rewind diff`.
@Suite("rewind replay (piped)", .ownThreads)
struct ReplayCommandTests {
    @Test("each event: a header line, then exactly the lines `rewind diff S@N-1 S@N` prints, indented")
    func pipedMatchesDiff() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["replay", "1"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let logged = try jsonLines(try fixture.run(["log", "1", "--json"]).stdout)
        #expect(logged.count == LogFixture.counterStates.count)

        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.last == "")
        lines.removeLast()
        var index = 0
        for event in logged {
            guard case .number(let seqNumber)? = event["seq"], let seq = seqNumber.int64Value,
                  case .string(let type)? = event["type"] else {
                Issue.record("log --json line without seq or type: \(event)")
                return
            }
            try #require(index < lines.count, "no header for seq \(seq)")
            let header = lines[index]
            #expect(header.hasPrefix("\(seq)  "), "header of seq \(seq): \(header)")
            #expect(header.contains("  \(type)"))
            #expect(header.hasSuffix("coalesced") == (event["coalesced"] == true))
            index += 1
            var expected: [String] = []
            if seq > 0 {
                let diff = try fixture.run(["diff", "1@\(seq - 1)", "1@\(seq)"])
                expected = diff.stdout.split(separator: "\n").map { "  " + $0 }
            }
            let printed = Array(lines[index..<min(index + expected.count, lines.count)])
            #expect(printed == expected, "changes of seq \(seq)")
            index += expected.count
            // Nothing else may follow before the next header.
            if index < lines.count { #expect(!lines[index].hasPrefix("  "), "extra line after seq \(seq): \(lines[index])") }
        }
        #expect(index == lines.count)
    }

    @Test("--from/--to limit the events; --json prints one object per event with its changes")
    func rangeAndJSON() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["replay", LogFixture.counterUUID, "--from", "2", "--to", "5", "--json"])
        #expect(result.status == 0)
        let printed = try jsonLines(result.stdout)
        let logged = try jsonLines(try fixture.run(["log", "1", "--json", "--from", "2", "--to", "5"]).stdout)
        #expect(printed.count == 4)
        for (mine, theirs) in zip(printed, logged) {
            for key in ["seq", "at", "type", "action", "durationNs", "cause", "coalesced"] {
                #expect(mine[key] == theirs[key])
            }
        }
        // Seq 2 renamed the user; seq 4 is coalesced and changed nothing.
        #expect(printed[0]["changes"] == [["op": "replace", "path": "/user/name", "old": "Ada", "new": "Grace"]])
        #expect(printed[2]["changes"] == [])
        // Seq 5: count 1 → 3, computed from the fixture's states rather than written out.
        let before = LogFixture.counterStates[4]["count"]!
        let after = LogFixture.counterStates[5]["count"]!
        #expect(printed[3]["changes"] == [["op": "replace", "path": "/count", "old": before, "new": after]])
    }

    @Test("an unknown session, an empty range and a --from past the end exit 2 with one sentence")
    func errors() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        for arguments in [["replay", "77"], ["replay", "1", "--from", "50"]] {
            let result = try fixture.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        let backwards = try fixture.run(["replay", "1", "--from", "5", "--to", "2"])
        #expect(backwards.status != 0)
        #expect(backwards.stderr.contains("--to must not be below --from"))
    }

    @Test("--into an offline session says the server's sentence and exits 1")
    func intoOffline() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let serve = try ServeProcess(["--port", "0", "--db", fixture.path, "--web", fixture.directory.url.path])
        defer {
            serve.signal(SIGKILL)
            _ = serve.waitForExit()
        }
        let port = try #require(serve.port())
        let result = try fixture.run(["replay", "1", "--from", "1", "--to", "3", "--into", "2",
                                      "--server", "ws://127.0.0.1:\(port)/inspect"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("sending 3 actions"))
        #expect(result.stderr.contains("app-offline") || result.stderr.contains("not connected"))
    }

    @Test("--into a range larger than the server's --max-message fails before sending, naming the size; a narrower one is sent")
    func intoTooLarge() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("rewind.db").path
        let serve = try ServeProcess(["--port", "0", "--db", db, "--web", dir.url.path, "--max-message", "1KiB"])
        defer {
            serve.signal(SIGKILL)
            _ = serve.waitForExit()
        }
        let port = try #require(serve.port())
        // Twenty events of a few hundred bytes each: every one fits the limit, all of them do not.
        let uuid = UUID().uuidString
        let app = try StreamingApp(port: port)
        #expect(app.hello(session: uuid) == 0)
        let padding = JSONValue.string(String(repeating: "x", count: 200))
        for seq in Int64(0)..<20 {
            guard case .object(var event) = TwoTypeRecording.event(seq), case .object(var action)? = event["action"] else { continue }
            action["pad"] = padding
            event["action"] = .object(action)
            app.send(.object(event))
        }
        #expect(app.waitForAck(19))

        let url = "ws://127.0.0.1:\(port)/inspect"
        let whole = try CLIRunner.run(["replay", uuid, "--from", "1", "--to", "19", "--into", uuid, "--server", url,
                                       "--max-message", "1KiB", "--db", db])
        #expect(whole.status == 2)
        #expect(whole.stderr.contains("over the server's limit of 1.0 KiB"), "stderr: \(whole.stderr)")
        #expect(whole.stderr.contains("--from and --to"))
        #expect(whole.stderr.split(separator: "\n").count == 1, "stderr: \(whole.stderr)")
        // Refused before connecting: nothing was sent.
        #expect(!whole.stderr.contains("sending"))

        // One action fits: it is sent (and the server answers for the session named).
        let one = try CLIRunner.run(["replay", uuid, "--from", "1", "--to", "1", "--into", "999", "--server", url,
                                     "--max-message", "1KiB", "--db", db])
        #expect(one.stderr.contains("sending 1 actions"), "stderr: \(one.stderr)")
        #expect(!one.stderr.contains("over the server's limit"))
    }
}
