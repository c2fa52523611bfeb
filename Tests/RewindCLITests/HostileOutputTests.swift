import Foundation
import RewindJSON
import RewindLog
import RewindWire
import Testing
@testable import RewindCLI
import RewindTestSupport

/// One escaping rule for every human-facing output: an app records a session whose every field
/// carries escape sequences, C1 controls and a bidi override (``HostileApp``), and every command
/// run on it writes none of them, to stdout or stderr, while showing each field escaped.
@Suite("every command escapes what the app recorded", .ownThreads)
struct HostileOutputTests {
    typealias App = HostileApp

    @Test("a hostile recording reaches no terminal raw: tail, branch, replay --into, then every command on its log")
    func everyCommand() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let environment = ["TZ": "UTC", "NO_COLOR": "1"]
        // Both tails follow every session, so they print the hostile one from seq 0 and say when it ends.
        let tail = try RunningCLI(["tail", "--all", "--diff", "--actions", "--server", server.url], environment: environment)
        defer { tail.stop() }
        let tailJSON = try RunningCLI(["tail", "--all", "--diff", "--json", "--server", server.url], environment: environment)
        defer { tailJSON.stop() }
        #expect(tail.waitForError("following every session"), "stderr: \(tail.stderr)")
        #expect(tailJSON.waitForError("following every session"), "stderr: \(tailJSON.stderr)")

        let app = try App(port: server.port)
        #expect(app.hello())
        for seq in Int64(0)...2 { app.send(App.event(seq)) }
        #expect(app.waitForAck(2))
        // With --all each line starts with APP/UUID8; seq 2's type is on the last event's line.
        #expect(tail.wait { out, _ in out.contains("  \(App.shown("W"))") }, "stdout: \(Self.visible(tail.stdout))")
        #expect(tailJSON.waitForLines(3), "stdout: \(Self.visible(tailJSON.stdout))")

        // branch and replay --into relay the app's answers (and its refusal) to the terminal.
        let branched = try CLIRunner.run(["branch", "1", "--skip", "1", "--server", server.url])
        Self.expectClean(branched, "branch")
        #expect(branched.status == 0, "stderr: \(Self.visible(branched.stderr))")
        #expect(branched.stdout.hasPrefix("branched into session \(App.shown("B")): 1 left out, \(App.shown("C"))\n"),
                "stdout: \(Self.visible(branched.stdout))")
        let refused = try CLIRunner.run(["branch", "1", "--skip", "2", "--server", server.url])
        Self.expectClean(refused, "branch (refused)")
        #expect(refused.status == 1)
        #expect(refused.stderr == "the app refused the branch: \(App.shown("X"))\n", "stderr: \(Self.visible(refused.stderr))")
        let replayed = try CLIRunner.run(["replay", "1", "--into", "1", "--server", server.url, "--db", server.db])
        Self.expectClean(replayed, "replay --into")
        #expect(replayed.status == 0, "stderr: \(Self.visible(replayed.stderr))")
        #expect(replayed.stdout == "replayed seq 1…2 into session 1: \(App.shown("Y"))\n", "stdout: \(Self.visible(replayed.stdout))")
        #expect(app.commands.map(\.kind) == [.branch, .branch, .replay])

        // The session ends: each tail says so, naming its uuid and app.
        app.send(AppMessage.end(id: 2).json)
        app.client.close(code: .normal)
        #expect(app.waitForClose())
        let ended = "rewind tail: session \(App.shown("U")) (\(App.shown("A"))) ended; no longer following it"
        #expect(tail.waitForError(ended), "stderr: \(Self.visible(tail.stderr))")
        #expect(tailJSON.waitForError(ended), "stderr: \(Self.visible(tailJSON.stderr))")
        tail.signal(SIGINT)
        tailJSON.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        #expect(tailJSON.waitForExit() == 0)
        try checkTail(human: tail, json: tailJSON)

        try checkLogCommands(db: server.db, environment: environment, dir: server.dir)
    }

    /// `tail`'s event lines, changes, payloads and JSON.
    private func checkTail(human: RunningCLI, json: RunningCLI) throws {
        Self.expectClean(human.stdoutBytes, "tail stdout")
        Self.expectClean(human.stderrBytes, "tail stderr")
        Self.expectClean(json.stdoutBytes, "tail --json stdout")
        Self.expectClean(json.stderrBytes, "tail --json stderr")
        let lines = human.stdout.split(separator: "\n").map(String.init)
        let seq1 = try #require(lines.firstIndex { $0.contains("  1  ") }, "stdout: \(Self.visible(human.stdout))")
        // APP/UUID8, type, summary and send site on the event's line.
        #expect(lines[seq1].hasPrefix("\(App.shown("A"))/\(App.shownPrefix("U"))  1  "), "\(Self.visible(lines[seq1]))")
        #expect(lines[seq1].contains("  \(App.shown("T"))  {\"\(App.json("P"))\""), "\(Self.visible(lines[seq1]))")
        #expect(lines[seq1].contains("@ \(App.shown("F")):12"), "\(Self.visible(lines[seq1]))")
        // The payload under it (--actions) and the change (--diff).
        #expect(human.stdout.contains("    \"\(App.json("P"))\": \"\(App.json("p"))\"\n"), "stdout: \(Self.visible(human.stdout))")
        #expect(human.stdout.contains("    ~ /\(App.shown("K")): \"\(App.json("S"))\" → \"\(App.json("s"))\"\n"),
                "stdout: \(Self.visible(human.stdout))")
        #expect(lines.contains { $0.contains("  2  ") && $0.contains("  \(App.shown("W"))") }, "stdout: \(Self.visible(human.stdout))")

        let printed = try jsonLines(json.stdout)
        #expect(printed.count == 3)
        #expect(printed.allSatisfy { $0["session"] == .string(App.uuid) && $0["app"] == .string(App.hostile("A")) })
        #expect(printed.map { $0["action"] } == (0...2).map { App.action($0) })
        #expect(printed[1]["site"] == ["file": .string(App.hostile("F")), "line": 12, "function": .string(App.hostile("N"))])
        #expect(printed[1]["changes"] == [["op": "replace", "path": .string(JSONPointer(tokens: [App.stateKey]).description),
                                           "old": .string(App.hostile("S")), "new": .string(App.hostile("s"))]])
    }

    /// Every command that reads the log, in its human and its JSON form.
    private func checkLogCommands(db: String, environment: [String: String], dir: TemporaryDirectory) throws {
        func run(_ arguments: [String], _ label: String, status: Int32 = 0) throws -> CLIRunner.Output {
            let result = try CLIRunner.run(arguments + ["--db", db], environment: environment)
            Self.expectClean(result, label)
            #expect(result.status == status, "\(label): stderr: \(Self.visible(result.stderr))")
            return result
        }
        func runJSON(_ arguments: [String], _ label: String, status: Int32 = 0) throws -> [JSONValue] {
            let result = try run(arguments, label, status: status)
            let lines = try jsonLines(result.stdout)
            #expect(!lines.isEmpty, "\(label) printed no JSON")
            return lines
        }
        func expectShows(_ output: CLIRunner.Output, _ needles: [String], _ label: String) {
            for needle in needles {
                #expect(output.stdout.contains(needle), "\(label) does not show \(Self.visible(needle)): \(Self.visible(output.stdout))")
            }
        }

        // sessions: UUID, RUN and APP; the JSON keeps every field the app chose.
        expectShows(try run(["sessions"], "sessions"), [App.shownPrefix("U"), App.shownPrefix("R"), App.shown("A")], "sessions")
        let sessions = try runJSON(["sessions", "--json"], "sessions --json")
        let session = try #require(sessions.first { $0["id"] == 1 })
        #expect(session["uuid"] == .string(App.uuid))
        #expect(session["app"] == .string(App.hostile("A")))
        #expect(session["run"] == .string(App.hostile("R")))
        #expect(session["replayOf"] == .string(App.hostile("O")))
        #expect(session["meta"]?["version"] == .string(App.hostile("V")))
        #expect(session["meta"]?[App.hostile("M")] == .string(App.hostile("m")))

        // log: TYPE, ACTION and --source's SOURCE.
        expectShows(try run(["log", "1"], "log"), ["  \(App.shown("T"))  ", "{\"\(App.json("P"))\"", "  \(App.shown("W"))"], "log")
        expectShows(try run(["log", "1", "--source"], "log --source"), ["\(App.shown("F")):12 \(App.shown("N"))"], "log --source")
        let logged = try runJSON(["log", "1", "--json"], "log --json")
        #expect(logged.map { $0["action"] } == (0...2).map { App.action($0) })
        #expect(logged[1]["site"]?["function"] == .string(App.hostile("N")))

        // state: pretty, compact, one path, and --json.
        let pretty = try run(["state", "1@last"], "state")
        #expect(try JSONValue(parsing: pretty.stdout) == App.state(2))
        expectShows(pretty, ["\"\(App.json("K"))\": \"\(App.json("s"))\""], "state")
        #expect(try JSONValue(parsing: try run(["state", "1@0", "--compact"], "state --compact").stdout) == App.state(0))
        let path = try run(["state", "1@1", "--path", App.pointer], "state --path")
        #expect(try JSONValue(parsing: path.stdout) == .string(App.hostile("s")))
        let stateJSON = try runJSON(["state", "1@last", "--json"], "state --json")
        #expect(stateJSON.first?["value"] == App.state(2))
        #expect(stateJSON.first?["path"] == "")

        // blame: TYPE and CHANGE.
        expectShows(try run(["blame", "1", App.pointer], "blame"),
                    ["  + \"\(App.json("S"))\"\n", "  \(App.shown("T"))  ~ \"\(App.json("S").prefix(20))"], "blame")
        let blamed = try runJSON(["blame", "1", App.pointer, "--json"], "blame --json")
        #expect(blamed.last?["type"] == .string(App.hostile("T")))
        #expect(blamed.last?["after"] == .string(App.hostile("s")))

        // find, per session and in every session.
        expectShows(try run(["find", "1", App.pointer, "--changed"], "find"),
                    ["\(App.shown("T")) {\"\(App.json("P"))", "\"\(App.json("S"))\" → \"\(App.json("s"))\""], "find")
        let found = try runJSON(["find", "1", App.pointer, "--changed", "--json"], "find --json")
        #expect(found.last?["type"] == .string(App.hostile("T")))
        #expect(found.last?["value"] == .string(App.hostile("s")))
        expectShows(try run(["find", "--all-sessions", App.pointer, "--exists"], "find --all-sessions"),
                    [App.shownPrefix("U"), App.shown("A")], "find --all-sessions")
        let everywhere = try runJSON(["find", "--all-sessions", App.pointer, "--exists", "--json"], "find --all-sessions --json")
        #expect(everywhere.first?["session"] == .string(App.uuid))
        #expect(everywhere.first?["app"] == .string(App.hostile("A")))

        // stats and verify name the session by uuid and app.
        expectShows(try run(["stats", "1"], "stats 1"), ["1 (\(App.shownPrefix("U")), \(App.shown("A")))"], "stats 1")
        _ = try run(["stats"], "stats")
        _ = try runJSON(["stats", "--json"], "stats --json")
        expectShows(try run(["verify"], "verify"), ["session 1 (\(App.shownPrefix("U")), \(App.shown("A"))): ok"], "verify")
        let verified = try runJSON(["verify", "--json"], "verify --json")
        #expect(verified.first?["uuid"] == .string(App.uuid))
        #expect(verified.first?["app"] == .string(App.hostile("A")))

        // diff: the text and the patch.
        expectShows(try run(["diff", "1@0", "1@last"], "diff", status: 1),
                    ["~ /\(App.shown("K")): \"\(App.json("S"))\" → \"\(App.json("s"))\"\n"], "diff")
        let patch = try run(["diff", "1@0", "1@last", "--format", "patch"], "diff --format patch", status: 1)
        let operations = try JSONValue(parsing: patch.stdout)
        #expect(operations[0]?["path"] == .string(JSONPointer(tokens: [App.stateKey]).description))
        #expect(operations[0]?["value"] == .string(App.hostile("s")))

        // replay, piped.
        expectShows(try run(["replay", "1"], "replay"),
                    ["  \(App.shown("T"))  {\"\(App.json("P"))", "@ \(App.shown("F")):12 \(App.shown("N"))", "  ~ /\(App.shown("K")): "],
                    "replay")
        let steps = try runJSON(["replay", "1", "--json"], "replay --json")
        #expect(steps.map { $0["type"] } == ["@@INIT", .string(App.hostile("T")), .string(App.hostile("W"))])

        // prune (a dry run) names what it would remove.
        expectShows(try run(["prune", "1", "--dry-run"], "prune"), ["(uuid \(App.shown("U")), app \(App.shown("A")),"], "prune")
        let pruned = try runJSON(["prune", "1", "--dry-run", "--json"], "prune --json")
        #expect(pruned.first?["removed"]?[0]?["app"] == .string(App.hostile("A")))

        try checkExport(db: db, environment: environment)
        try checkFiles(db: db, environment: environment, dir: dir, run: run)

        // A log whose session fails verify: the problem on stderr names the session too.
        let connection = try Connection(path: db)
        try connection.execute("DROP TRIGGER events_no_update")
        try connection.execute("UPDATE events SET hash = 12345 WHERE session_id = 1 AND seq = 2")
        let failed = try run(["verify", "1"], "verify (a failure)", status: 1)
        #expect(failed.stderr.hasPrefix("session 1 (\(App.shownPrefix("U")), \(App.shown("A"))): seq 2: "),
                "stderr: \(Self.visible(failed.stderr))")
    }

    /// `export`: data, byte for byte, into a pipe; escaped as JSON on a terminal.
    private func checkExport(db: String, environment: [String: String]) throws {
        let piped = try CLIRunner.run(["export", "1", "--db", db], environment: environment)
        #expect(piped.status == 0)
        // JSON escapes the C0 controls; the C1 controls and the override are the recording's bytes.
        let raw = Array("T\\u001b[2J\\u001b]0;PWNED\\u0007\u{9B}31m\u{85}\u{202E}evil".utf8)
        #expect(piped.stdoutBytes.indices.contains { piped.stdoutBytes[$0...].starts(with: raw) },
                "an export into a pipe is the recording's bytes")
        for format in ["jsonl", "redux-devtools"] {
            let shown = try PseudoTerminal.run(["export", "1", "--format", format, "--db", db], environment: environment)
            Self.expectClean(shown, "export --format \(format) on a terminal")
            #expect(shown.status == 0, "stderr: \(Self.visible(shown.stderr))")
            #expect(shown.stdout.contains(App.json("T")), "stdout: \(Self.visible(shown.stdout))")
            // The same JSON as the piped export.
            let intoPipe = try CLIRunner.run(["export", "1", "--format", format, "--db", db]).stdout
            if format == "jsonl" {
                #expect(try jsonLines(shown.stdout) == jsonLines(intoPipe))
            } else {
                #expect(try JSONValue(parsing: shown.stdout) == JSONValue(parsing: intoPipe))
            }
        }
    }

    /// What reads files an app made: `test` (its messages and the Swift file), `import`'s
    /// errors, `patch` and `fmt`.
    private func checkFiles(db: String, environment: [String: String], dir: TemporaryDirectory,
                            run: ([String], String, Int32) throws -> CLIRunner.Output) throws {
        let out = dir.url.appendingPathComponent("Tests").path
        let made = try run(["test", "1", "--reducer", "appReducer", "--name", "hostile", "-o", out], "test", 0)
        #expect(made.stdout.contains("run it: swift test --filter hostile"))
        let swift = try Data(contentsOf: URL(fileURLWithPath: out + "/hostile.swift"))
        Self.expectClean(Array(swift), "the test's Swift file")
        #expect(String(decoding: swift, as: UTF8.self).contains(App.shown("A")))

        // Valid JSON (the C0 controls escaped, the rest raw) with a member import refuses.
        let trace = try dir.file("trace.jsonl", contents: "{\"state\":{},\(JSONValue.string(App.hostile("I"))):1}\n")
        let refused = try run(["import", trace], "import (refused)", 1)
        #expect(refused.stderr.contains("the line has a member \"\(App.shown("I"))\""), "stderr: \(Self.visible(refused.stderr))")

        let document = try dir.file("doc.json", contents: App.state(0).serialized())
        let operations = try dir.file("patch.json", contents: "[{\"op\":\"add\",\"path\":\"/z\",\"value\":\(JSONValue.string(App.hostile("Z")))}]")
        let patched = try run(["patch", document, operations], "patch", 0)
        #expect(try JSONValue(parsing: patched.stdout)["z"] == .string(App.hostile("Z")))
        let formatted = try CLIRunner.run(["fmt", document])
        Self.expectClean(formatted, "fmt")
        #expect(formatted.status == 0, "fmt: stderr: \(Self.visible(formatted.stderr))")
        #expect(try JSONValue(parsing: formatted.stdout) == App.state(0))
        #expect(formatted.stdout.contains(App.json("S")))
    }

    // MARK: checks

    /// Fails for each stream of `output` that holds something a terminal would act on.
    static func expectClean(_ output: CLIRunner.Output, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectClean(output.stdoutBytes, "\(label): stdout", sourceLocation: sourceLocation)
        expectClean(output.stderrBytes, "\(label): stderr", sourceLocation: sourceLocation)
    }

    /// Fails when `bytes` hold a C0 control but newline, DEL, a C1 control, a bidirectional
    /// formatting character, or anything that is not UTF-8 (a lone 0x9B byte is a CSI too).
    static func expectClean(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(Array(text.utf8) == bytes, "\(label) is not UTF-8", sourceLocation: sourceLocation)
        let controls = bytes.enumerated().filter { index, byte in
            (byte < 0x20 && byte != 0x0A) || byte == 0x7F
                || (byte == 0xC2 && index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]))
        }
        #expect(controls.isEmpty, "\(label) holds control bytes at \(controls.prefix(5).map(\.offset)): \(visible(text))",
                sourceLocation: sourceLocation)
        let scalars = text.unicodeScalars.filter { $0 != "\n" && JSONWriteOptions.isTerminalControl($0) }
        #expect(scalars.isEmpty, "\(label) holds \(scalars.map { "U+" + String($0.value, radix: 16) }): \(visible(text))",
                sourceLocation: sourceLocation)
    }

    /// `text` safe to print in a failure message.
    static func visible(_ text: String) -> String {
        TerminalText.escapedLines(text)
    }
}
