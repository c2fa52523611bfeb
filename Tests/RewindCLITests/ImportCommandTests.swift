import Foundation
import RewindLog
import Testing
import RewindTestSupport

/// `rewind import`, run as a user would run it.
@Suite("rewind import", .ownThreads)
struct ImportCommandTests {
    static let withInitial = """
    {"state":{"todos":[]},"at":1700000000}
    {"action":{"type":"todos/add","title":"milk"},"state":{"todos":[{"title":"milk","done":false}]},"at":1700000001.25}
    {"action":{"type":"todos/toggle","index":0},"state":{"todos":[{"title":"milk","done":true}]},"at":1700000002.5}

    """

    static let withoutInitialOrTimes = """
    {"action":{"type":"load"},"state":{"user":"ada"}}
    {"action":{"type":"logout"},"state":{"user":null}}

    """

    /// The lifted-state fixture of the unit tests, compact, in the `{payload, preloadedState}` shape.
    static let payloadShape = #"{"payload":"{\"actionsById\":{\"0\":{\"type\":\"PERFORM_ACTION\",\"action\":{\"type\":\"@@INIT\"},\"timestamp\":1700000000000},\"1\":{\"type\":\"PERFORM_ACTION\",\"action\":{\"type\":\"add\",\"n\":2},\"timestamp\":1700000000500}},\"computedStates\":[{\"state\":{\"sum\":0}},{\"state\":{\"sum\":2}}],\"stagedActionIds\":[0,1],\"skippedActionIds\":[],\"committedState\":{\"sum\":0},\"currentStateIndex\":1,\"nextActionId\":2}","preloadedState":"{\"sum\":0}"}"#

    static let lifted = """
    {
      "actionsById": {
        "0": {"type": "PERFORM_ACTION", "action": {"type": "@@INIT"}, "timestamp": 1700000000000},
        "1": {"type": "PERFORM_ACTION", "action": {"type": "add", "n": 2}, "timestamp": 1700000000500},
        "2": {"type": "PERFORM_ACTION", "action": {"type": "add", "n": 3}, "timestamp": 1700000000750}
      },
      "computedStates": [{"state": {"sum": 0}}, {"state": {"sum": 2}}, {"state": {"sum": 5}}],
      "stagedActionIds": [0, 1, 2],
      "skippedActionIds": [],
      "committedState": {"sum": 0},
      "currentStateIndex": 2,
      "nextActionId": 3
    }
    """

    /// A temporary folder with a log path in it.
    struct Workspace {
        let directory: TemporaryDirectory
        var db: String { directory.url.appendingPathComponent("log.db").path }

        init() throws { directory = try TemporaryDirectory() }

        func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIRunner.Output {
            try CLIRunner.run(arguments + ["--db", db], stdin: stdin)
        }
    }

    func withWorkspace(_ body: (Workspace) throws -> Void) throws {
        let workspace = try Workspace()
        defer { workspace.directory.cleanup() }
        try body(workspace)
    }

    @Test("JSONL with an initial line and times: prints the session, and export gives back the same bytes")
    func jsonlWithInitial() throws {
        try withWorkspace { ws in
            let path = try ws.directory.file("todo.jsonl", contents: Self.withInitial)
            let result = try ws.run(["import", path])
            #expect(result.status == 0)
            #expect(result.stderr == "")
            let uuid = try LogReader(path: ws.db).session(id: 1).uuid
            #expect(result.stdout == "Imported \(path) as session 1 (uuid \(uuid)): 3 events, seq 0 to 2.\n")
            let exported = try ws.run(["export", "1"])
            #expect(exported.status == 0)
            #expect(exported.stdout == Self.withInitial)
        }
    }

    @Test("JSONL without an initial line or times: seq 0 is {}, and export gives back the same bytes")
    func jsonlWithoutInitial() throws {
        try withWorkspace { ws in
            let path = try ws.directory.file("auth.jsonl", contents: Self.withoutInitialOrTimes)
            let result = try ws.run(["import", path, "--json"])
            #expect(result.status == 0)
            let uuid = try LogReader(path: ws.db).session(id: 1).uuid
            #expect(result.stdout == #"{"id":1,"uuid":"\#(uuid)","app":"auth","format":"jsonl","events":3,"syntheticInitial":true}"# + "\n")
            let reader = try LogReader(path: ws.db)
            #expect(try reader.keyframe(atOrBefore: 0, session: 1)?.state == [:])
            #expect(try ws.run(["export", "latest"]).stdout == Self.withoutInitialOrTimes)
        }
    }

    @Test("'-' reads standard input; --app names the app")
    func standardInput() throws {
        try withWorkspace { ws in
            let result = try ws.run(["import", "-", "--app", "Todo"], stdin: Data(Self.withInitial.utf8))
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Imported <stdin> as session 1"))
            #expect(try LogReader(path: ws.db).session(id: 1).app == "Todo")
            #expect(try ws.run(["export", "1"]).stdout == Self.withInitial)
        }
    }

    @Test("both Redux DevTools shapes are recognised and give the same actions and states")
    func reduxShapes() throws {
        try withWorkspace { ws in
            let liftedPath = try ws.directory.file("lifted.json", contents: Self.lifted)
            let payloadPath = try ws.directory.file("payload.json", contents: Self.payloadShape)
            #expect(try ws.run(["import", liftedPath]).status == 0)
            #expect(try ws.run(["import", payloadPath, "--format", "redux-devtools"]).status == 0)
            let lines = try ws.run(["export", "1", "--format", "jsonl"]).stdout
            #expect(lines == """
            {"state":{"sum":0},"at":1700000000}
            {"action":{"type":"add","n":2},"state":{"sum":2},"at":1700000000.5}
            {"action":{"type":"add","n":3},"state":{"sum":5},"at":1700000000.75}

            """)
            let payloadLines = try ws.run(["export", "2", "--format", "jsonl"]).stdout
            #expect(payloadLines == lines.split(separator: "\n").prefix(2).map { $0 + "\n" }.joined())
        }
    }

    @Test("export --format redux-devtools, imported again, gives the same actions, states and times")
    func reduxReimport() throws {
        try withWorkspace { ws in
            let path = try ws.directory.file("todo.jsonl", contents: Self.withInitial)
            #expect(try ws.run(["import", path]).status == 0)
            let out = ws.directory.url.appendingPathComponent("devtools.json").path
            let exported = try ws.run(["export", "1", "--format", "redux-devtools", "-o", out])
            #expect(exported.status == 0)
            #expect(exported.stdout == "")
            #expect(try ws.run(["import", out]).status == 0)
            let first = try ws.run(["export", "1", "--format", "jsonl"]).stdout
            let second = try ws.run(["export", "2", "--format", "jsonl"]).stdout
            #expect(first == Self.withInitial)
            #expect(second == first)
        }
    }

    /// Bad inputs, each with the sentence `rewind import` must print.
    static let badInputs: [(name: String, contents: String, format: String?, message: String)] = [
        ("malformed.jsonl", #"{"state":{}}"# + "\n" + #"{"action":"a","state":{}}"# + "\n" + #"{"action":"a","state":{"n":1}"# + "\n",
         nil, "line 3, column 30: unexpected end of input: expected ',' or '}'; nothing was imported."),
        ("stateless.jsonl", #"{"state":{}}"# + "\n" + #"{"action":"a"}"# + "\n",
         nil, #"line 2: the line has no "state"; nothing was imported."#),
        ("mismatch.json", lifted.replacingOccurrences(of: #""stagedActionIds": [0, 1, 2]"#, with: #""stagedActionIds": [0, 1, 2, 3]"#),
         nil, "action 3: stagedActionIds lists 4 actions but computedStates holds only 3 states, so this action has none; nothing was imported."),
        ("payload.json", #"{"payload":"{\"actionsById\":","preloadedState":"{}"}"#,
         "redux-devtools", "payload is not valid JSON: line 1, column 16: unexpected end of input: expected a value; nothing was imported."),
        ("lifted.jsonl", lifted, "jsonl", "line 1, column 2: unexpected end of input: expected a string key; nothing was imported."),
    ]

    @Test("a bad line or action exits 1 with one sentence naming it, and the log holds what it held before",
          arguments: 0..<badInputs.count)
    func badInput(index: Int) throws {
        let bad = Self.badInputs[index]
        try withWorkspace { ws in
            let good = try ws.directory.file("good.jsonl", contents: Self.withInitial)
            #expect(try ws.run(["import", good]).status == 0)
            let before = try LogFixture.snapshot(ws.db)
            let path = try ws.directory.file(bad.name, contents: bad.contents)
            let result = try ws.run(["import", path] + (bad.format.map { ["--format", $0] } ?? []))
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(result.stderr == "\(path): \(bad.message)\n")
            #expect(try LogFixture.snapshot(ws.db) == before)
        }
    }

    @Test("a missing file exits 2, and no log is created")
    func missingFile() throws {
        try withWorkspace { ws in
            let result = try ws.run(["import", "/nonexistent/trace.jsonl"])
            #expect(result.status == 2)
            #expect(result.stderr == "/nonexistent/trace.jsonl: no such file\n")
            #expect(!FileManager.default.fileExists(atPath: ws.db))
        }
    }

    @Test("progress is drawn on stderr only when it is a terminal",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressOnTerminal() throws {
        try withWorkspace { ws in
            var lines = [#"{"state":{"n":0},"at":1700000000}"#]
            for n in 1..<3_000 { lines.append(#"{"action":"inc","state":{"n":\#(n)},"at":1700000000}"#) }
            let path = try ws.directory.file("big.jsonl", contents: lines.joined(separator: "\n") + "\n")
            let piped = try ws.run(["import", path])
            #expect(piped.status == 0)
            #expect(piped.stderr == "")
            let shown = try Self.onTerminal(["import", path, "--db", ws.db])
            #expect(shown.contains("\rrewind import: 1024 records read"))
            #expect(shown.contains("Imported \(path) as session 2"))

            let out = ws.directory.url.appendingPathComponent("out.jsonl").path
            let exported = try Self.onTerminal(["export", "2", "-o", out, "--db", ws.db])
            #expect(exported.contains("\rrewind export: 1024 of 3000 events"))
            #expect(try String(contentsOfFile: out, encoding: .utf8) == lines.joined(separator: "\n") + "\n")
        }
    }

    /// Runs `rewind arguments…` on a pseudo-terminal (script(1) copies what it shows) and
    /// returns what appeared there, standard output and standard error together.
    static func onTerminal(_ arguments: [String]) throws -> String {
        let command = ([CLIRunner.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = try Subprocess("/usr/bin/script", ["-qec", command, "/dev/null"], output: .pipe)
        let shown = String(decoding: process.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.waitUntilExit() == 0)
        return shown
    }
}
