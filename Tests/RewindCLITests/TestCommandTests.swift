import Foundation
import RewindJSON
import RewindLog
@testable import RewindCLI
import Testing
import RewindTestSupport

/// `rewind test`: the files it writes, `--from`, `--server`, and what it refuses.
@Suite("rewind test", .ownThreads)
struct TestCommandTests {
    @Test("writes NAME.swift and NAME.jsonl; the fixture is the session's export with its causes")
    func writesBothFiles() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("Tests/AppTests").path
        let result = try fixture.run(["test", "1", "--reducer", "appReducer", "--module", "MyApp", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("run it: swift test --filter counterSession1"))
        let swift = try String(contentsOfFile: out + "/counterSession1.swift", encoding: .utf8)
        #expect(swift.contains("@testable import MyApp\n"))
        #expect(swift.contains("@Test func counterSession1() throws {"))
        #expect(swift.contains(".appendingPathComponent(\"counterSession1.jsonl\").path"))
        #expect(swift.contains("try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording)"))
        #expect(swift.contains("mismatch?.description(maxLines: 20)"))
        #expect(swift.hasPrefix("// Made by `rewind test 1 --reducer appReducer --module MyApp --name counterSession1 -o "))
        #expect(swift.contains("from session 1 (\(LogFixture.counterUUID), \"Counter\", 9 events)"))
        let lines = try jsonLines(try String(contentsOfFile: out + "/counterSession1.jsonl", encoding: .utf8))
        #expect(lines.count == LogFixture.counterStates.count)
        #expect(lines.map { $0["state"] } == LogFixture.counterStates.map { $0 })
        #expect(lines[2]["cause"] == 1)
        #expect(lines[4]["coalesced"] == true)
        // The same bytes `rewind export` writes.
        let export = try fixture.run(["export", "1", "--format", "jsonl"])
        #expect(try String(contentsOfFile: out + "/counterSession1.jsonl", encoding: .utf8) == export.stdout)
    }

    @Test("--expect writes a test of a recorded bug: its header says so, the expectations are in the code, the command line keeps them")
    func expectations() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("Tests").path
        // A key that holds "=", and a string with quotes and a character past ASCII.
        let name = #"7:/user/name="Grâce \"G\"""#
        let result = try fixture.run(["test", "1", "--step", "appStep", "-o", out, "--expect", "5:/count=2",
                                      "--expect", name, "--expect", "6:/a=b=[1]"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let swift = try String(contentsOfFile: out + "/counterSession1.swift", encoding: .utf8)
        #expect(swift.contains("// A recorded bug: it replays counterSession1.jsonl"))
        #expect(swift.contains("// checks every state before seq 5 against the recording, and then what the state should hold (--expect):"))
        #expect(swift.contains("//   at seq 5, /count should be 2\n"))
        #expect(swift.contains(#"        try ReplayExpectation(seq: 5, pointer: "/count", json: "2"),"#))
        #expect(swift.contains(#"        try ReplayExpectation(seq: 7, pointer: "/user/name", json: "\"Gr\u{e2}ce \\\"G\\\"\""),"#), "\(swift)")
        #expect(swift.contains(#"        try ReplayExpectation(seq: 6, pointer: "/a=b", json: "[1]"),"#))
        #expect(swift.contains("let mismatch = try ReplayVerifier(step: appStep).firstMismatch(in: recording, expecting: expected)"))
        #expect(swift.hasPrefix("// Made by `rewind test 1 --step appStep --name counterSession1 -o \(out) --expect 5:/count=2 --expect '7:/user/name="))
        // It parses as Swift.
        let parsed = try RecordedBugEndToEndTests.run("swiftc", ["-parse", out + "/counterSession1.swift"], in: fixture.directory.url)
        #expect(parsed.status == 0, "\(parsed.output)")
        // Without --expect the header says the test locks in the recording.
        let plain = try fixture.run(["test", "1", "--step", "appStep", "-o", out, "--name", "locked"])
        let locked = try String(contentsOfFile: out + "/locked.swift", encoding: .utf8)
        #expect(plain.status == 0)
        #expect(locked.contains("it locks in the recorded behaviour, bugs\n// included. For a recorded bug, say what the state should have been with --expect SEQ:POINTER=JSON."))
    }

    @Test("a crash in the reducer becomes an exit test that sends the crashing action; one between actions a replay test that says so first; both parse",
          arguments: [true, false])
    func crashSource(inReducer: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let reducing: JSONValue = inReducer
            ? ["seq": 4, "type": "pay", "action": ["pay": ["_0": 5]], "site": ["file": "Shop/Cart.swift", "line": 12, "function": "tap()"]]
            : .null
        let crash: JSONValue = ["type": "@@rewind/crashed", "signal": "SIGILL", "number": 4, "lost": 0, "reducing": reducing]
        let lines: [JSONValue] = [["state": ["total": 0]], ["seq": 1, "action": ["add": ["_0": 5]], "patch": []], ["seq": 2, "action": crash, "patch": []]]
        #expect(TestCommand.crash(in: lines) == crash)
        #expect(TestCommand.crash(in: Array(lines.prefix(2))) == nil)
        let swift = TestCommand.testSource(name: "shopSession2", replayer: .step("shopStep"), module: "Shop", maxLines: 20,
                                           command: "rewind test 2 --step shopStep", origin: "session 2", steps: 2, from: 0,
                                           crash: crash)
        if inReducer {
            #expect(swift.contains("// The app crashed: SIGILL in pay (seq 4), sent at Shop/Cart.swift:12.\n"), "\(swift)")
            #expect(swift.contains("#if os(macOS) || os(Linux) || os(Windows)\n@Test func shopSession2() async {\n    await #expect(processExitsWith: .success) {"), "\(swift)")
            #expect(swift.contains(#"        let crashing = try JSONValue(parsing: "{\"pay\":{\"_0\":5}}")"#), "\(swift)")
            #expect(swift.contains("        try ReplayVerifier(step: shopStep).reproduceCrash(in: recording, action: crashing)\n"), "\(swift)")
            #expect(swift.contains("#else\n// Exit tests need a process of their own, which iOS, tvOS, watchOS and visionOS"), "\(swift)")
            #expect(swift.contains("(beside this file, 1 actions)"), "\(swift)")
        } else {
            #expect(swift.contains("// The app crashed (SIGILL between actions), not in the reducer: in a view, an effect or elsewhere. This test cannot send the crash again: it\n"), "\(swift)")
            #expect(swift.contains("try ReplayVerifier(step: shopStep).firstMismatch(in: recording)"), "\(swift)")
            #expect(!swift.contains("processExitsWith"))
        }
        let file = directory.url.appendingPathComponent("shopSession2.swift")
        try Data(swift.utf8).write(to: file)
        let parsed = try RecordedBugEndToEndTests.run("swiftc", ["-parse", file.path], in: directory.url)
        #expect(parsed.status == 0, "\(parsed.output)")
    }

    @Test("an expectation the recording already holds is said: the test would pass with today's reducer")
    func expectationAlreadyRecorded() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("Tests").path
        let result = try fixture.run(["test", "1", "--step", "appStep", "-o", out, "--expect", "5:/count=3"])
        #expect(result.status == 0)
        #expect(result.stderr == "rewind test: --expect 5:/count: the recording already holds 3 there, so the test passes with today's reducer; is the bug at another seq or path?\n")
    }

    @Test("expectations that are not SEQ:POINTER=JSON, or not at an action of the session, are refused before anything is written", arguments: [
        (["--expect", "five:/count=2"], "--expect 'five:/count=2' must be SEQ:POINTER=JSON"),
        (["--expect", "0:/count=2"], "--expect 0: a seq of an action, 1 or more"),
        (["--expect", "5:count=2"], "--expect 5: 'count' is not a JSON Pointer"),
        (["--expect", "5:/user/name=Grace"], "--expect 5:/user/name: the value is not JSON (a string needs its quotes"),
        (["--expect", "5:/count"], "--expect '5:/count' must be SEQ:POINTER=JSON"),
        (["--expect", "9:/count=2"], "--expect 9: session 1"),
        (["--expect", "2:/count=2", "--from", "3"], "has no such action after --from 3: its actions are seqs 4…8"),
    ])
    func refusesBadExpectations(arguments: [String], message: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("out").path
        let result = try fixture.run(["test", "1", "--step", "appStep", "-o", out] + arguments)
        #expect(result.status == 2 || result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--step writes a test that imports RewindRecorder alone and replays through the step function")
    func stepForAnyStore() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("Tests").path
        let result = try fixture.run(["test", "1", "--step", "appStep", "--module", "MyApp", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let swift = try String(contentsOfFile: out + "/counterSession1.swift", encoding: .utf8)
        #expect(swift.contains("\nimport RewindRecorder\n"))
        #expect(!swift.contains("import Rewind\n"))
        #expect(swift.contains("ReplayVerifier(step: appStep)"))
        #expect(swift.hasPrefix("// Made by `rewind test 1 --step appStep --module MyApp --name counterSession1 -o "))
    }

    @Test("--from starts at the state recorded there; a coalesced state or a seq past the end is refused")
    func from() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("out").path
        let result = try fixture.run(["test", "1", "--reducer", "appReducer", "--name", "fromTwo", "--from", "2", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try jsonLines(try String(contentsOfFile: out + "/fromTwo.jsonl", encoding: .utf8))
        #expect(lines.count == LogFixture.counterStates.count - 2)
        #expect(lines[0] == ["state": LogFixture.counterStates[2], "at": 1_700_000_002, "from": 2])
        #expect(lines[1]["action"] == ["type": "todo/add", "title": "milk"])
        let coalesced = try fixture.run(["test", "1", "--reducer", "r", "--from", "4", "-o", out])
        #expect(coalesced.status == 2)
        #expect(coalesced.stderr == "the state at seq 4 was coalesced (not recorded on its own); start --from another seq\n")
        let past = try fixture.run(["test", "1", "--reducer", "r", "--from", "99", "-o", out])
        #expect(past.status == 2)
        #expect(past.stderr.contains("--from 99 is past the end of session 1"))
    }

    @Test("names that are not Swift are refused before anything is written", arguments: [
        (["--reducer", "app reducer"], "--reducer 'app reducer' is not a Swift name"),
        (["--reducer", "r", "--name", "class"], "--name 'class' must be a Swift identifier"),
        (["--reducer", "r", "--name", "9lives"], "--name '9lives' must be a Swift identifier"),
        (["--reducer", "r", "--module", "My-App"], "--module 'My-App' is not a Swift module name"),
        (["--reducer", "r", "--name", "_"], "--name '_' must be a Swift identifier"),
        (["--reducer", "r", "--name", "precedencegroup"], "--name 'precedencegroup' must be a Swift identifier"),
        (["--reducer", "r", "--module", "_"], "--module '_' is not a Swift module name"),
        (["--reducer", "_"], "--reducer '_' is not a Swift name"),
        (["--reducer", "App._"], "--reducer 'App._' is not a Swift name"),
        (["--step", "app step"], "--step 'app step' is not a Swift name"),
        ([String](), "give --reducer SYMBOL (a Rewind Reducer) or --step SYMBOL"),
        (["--reducer", "r", "--step", "s"], "give --reducer or --step, not both"),
    ])
    func refusesBadNames(arguments: [String], message: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let out = fixture.directory.url.appendingPathComponent("out").path
        let result = try fixture.run(["test", "1"] + arguments + ["-o", out])
        #expect(result.status != 0)
        #expect(result.stderr.contains(message))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("every word the name check refuses (but three) is one Swift cannot parse as a name; contextual keywords it takes parse")
    func keywordsAreReallyReserved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.url.appendingPathComponent("name.swift")
        func parses(_ name: String) throws -> Bool {
            try Data("func \(name)() {}\nimport \(name)\n".utf8).write(to: file)
            return try RecordedBugEndToEndTests.run("swiftc", ["-parse", file.path], in: directory.url).status == 0
        }
        var parsedAnyway: [String] = []
        for word in TestCommand.keywords.sorted() where try parses(word) {
            parsedAnyway.append(word)
        }
        // Three contextual keywords are refused on purpose: `await` and `async` mean something
        // in the async code a test is, and `open` reads as the access level.
        #expect(parsedAnyway == ["async", "await", "open"], "refused, yet Swift parses them as names: \(parsedAnyway)")
        for word in ["Type", "some", "actor", "package", "consuming"] {
            #expect(TestCommand.isIdentifier(word), "\(word)")
            #expect(try parses(word), "\(word)")
        }
    }

    @Test("--server takes the session from rewind serve: the same files; a missing token is one sentence")
    func fromServer() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let serve = try ServeProcess(["--port", "0", "--db", fixture.path, "--web", fixture.directory.url.path, "--token", "s3cret"])
        defer {
            serve.signal(SIGKILL)
            _ = serve.waitForExit()
        }
        let port = try #require(serve.port())
        let local = fixture.directory.url.appendingPathComponent("local").path
        let remote = fixture.directory.url.appendingPathComponent("remote").path
        #expect(try fixture.run(["test", "3f2a", "--reducer", "appReducer", "--name", "bug", "-o", local]).status == 0)
        let denied = try fixture.run(["test", "3f2a", "--reducer", "appReducer", "--name", "bug", "-o", remote,
                                      "--server", "ws://127.0.0.1:\(port)"])
        #expect(denied.status == 2)
        #expect(denied.stderr == "rewind serve at ws://127.0.0.1:\(port) wants its token: pass --token or set REWIND_TOKEN\n")
        let fetched = try fixture.run(["test", "3f2a", "--reducer", "appReducer", "--name", "bug", "-o", remote,
                                       "--server", "ws://127.0.0.1:\(port)", "--token", "s3cret"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: remote + "/bug.jsonl")) == Data(contentsOf: URL(fileURLWithPath: local + "/bug.jsonl")))
        // Without --name, the test is named after the app from the server as from the log.
        let named = try fixture.run(["test", "3f2a", "--step", "appStep", "-o", remote,
                                     "--server", "ws://127.0.0.1:\(port)", "--token", "s3cret"])
        let fromLog = try fixture.run(["test", "3f2a", "--step", "appStep", "-o", local])
        #expect(named.status == 0 && fromLog.status == 0, "\(named.stderr)\(fromLog.stderr)")
        #expect(fromLog.stdout.contains("run it: swift test --filter counterSession1\n"), "\(fromLog.stdout)")
        #expect(named.stdout.contains("run it: swift test --filter counterSession1\n"), "\(named.stdout)")
        let unknown = try fixture.run(["test", "nope", "--reducer", "appReducer", "-o", remote,
                                       "--server", "ws://127.0.0.1:\(port)", "--token", "s3cret"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("rewind serve at ws://127.0.0.1:\(port): "))
        let nobody = try fixture.run(["test", "1", "--reducer", "appReducer", "-o", remote, "--server", "ws://127.0.0.1:1"])
        #expect(nobody.status == 2)
        #expect(nobody.stderr.hasPrefix("cannot reach rewind serve at 127.0.0.1:1: "))
    }
}
