import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("rewind demo", .ownThreads)
struct DemoCommandTests {
    /// The sessions `rewind demo` announced: app name → uuid.
    static func sessions(in stdout: String) -> [String: String] {
        var sessions: [String: String] = [:]
        for line in stdout.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 3, words[1] == "session", !line.contains("events recorded") {
                sessions[String(words[0])] = String(words[2])
            }
        }
        return sessions
    }

    /// `rewind log --json`'s events of a session.
    static func events(_ db: String, _ session: String) throws -> [JSONValue] {
        let log = try CLIRunner.run(["log", "--db", db, session, "--json"])
        #expect(log.status == 0, "\(log.stderr)")
        return try log.stdout.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
    }

    @Test("records the four apps into a log that verifies, with their action types and blame")
    func recordsIntoALog() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("demo.db").path
        let result = try CLIRunner.run(["demo", "--db", db, "--app", "all", "--duration", "3", "--rate", "50"])
        #expect(result.status == 0, "\(result.stderr)")
        let sessions = Self.sessions(in: result.stdout)
        #expect(Set(sessions.keys) == ["images", "users", "breweries", "orders"])

        // What each app's scripted user does first, and the answer to a first request.
        let expected: [String: [String]] = [
            "images": ["images/appear", "images/load/"],
            "users": ["users/authenticate/"],
            "breweries": ["breweries/city/changed"],
            "orders": ["orders/load", "orders/load/"],
        ]
        for (app, uuid) in sessions {
            let verify = try CLIRunner.run(["verify", "--db", db, uuid])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains(": ok,"))
            let events = try Self.events(db, uuid)
            let types = events.compactMap { $0["type"]?.string }
            #expect(types.first == "@@INIT")
            #expect(types.dropFirst().allSatisfy { $0.hasPrefix(app + "/") }, "\(types)")
            for prefix in expected[app] ?? [] {
                #expect(types.contains { $0.hasPrefix(prefix) }, "\(app): no \(prefix) in \(types)")
            }
            // The summary's count is what the log holds.
            #expect(result.stdout.contains("\(app.padding(toLength: 9, withPad: " ", startingAt: 0))  \(events.count) events recorded"),
                    "\(result.stdout)")
        }

        // The breweries user types letter by letter: blame of /city finds those actions.
        let breweries = try #require(sessions["breweries"])
        let blame = try CLIRunner.run(["blame", "--db", db, breweries, "/city", "--json"])
        #expect(blame.status == 0, "\(blame.stderr)")
        let changes = try blame.stdout.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
        let typed = changes.filter { $0["type"] == "breweries/city/changed" }
        #expect(typed.count >= 3)
        #expect(typed.allSatisfy { $0["after"] == $0["action"]?["city"] })
    }

    @Test("--state-log has a line per change for every session")
    func stateLog() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("demo.db").path
        let states = dir.url.appendingPathComponent("states.jsonl").path
        // Four seconds: the orders app changes state on its pretend back end's replies (120 to
        // 900 ms each), and two seconds under the suite's load once gave it only two lines.
        let result = try CLIRunner.run(["demo", "--db", db, "--app", "breweries,orders", "--duration", "4", "--rate", "40",
                                        "--state-log", states, "--seed", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        let sessions = Self.sessions(in: result.stdout)
        #expect(Set(sessions.keys) == ["breweries", "orders"])
        let lines = try String(contentsOfFile: states, encoding: .utf8).split(separator: "\n")
        for (app, uuid) in sessions {
            let mine = try lines.map { try JSONValue(parsing: Array($0.utf8)) }.filter { $0["session"] == .string(uuid) }
            // How many depends on how fast the scripted user got through, under the suite's load.
            #expect(mine.count >= 3)
            #expect(mine.allSatisfy { $0["app"] == .string(app) && $0["locked"] == false })
            // The last line is the last recorded state, hashed as the recorder hashes it.
            let state = try CLIRunner.run(["state", "--db", db, "\(uuid)@last", "--json"])
            #expect(state.status == 0, "\(state.stderr)")
            let value = try #require(try JSONValue(parsing: Array(state.stdout.utf8))["value"])
            let hex = String(value.treeHash, radix: 16)
            #expect(mine.last?["hash"] == .string(String(repeating: "0", count: 16 - hex.count) + hex))
        }
    }

    @Test("bad input: one sentence and a non-zero exit, nothing written", arguments: [
        (["--app", "nope"], "no demo app named 'nope'"),
        (["--server", "http://127.0.0.1:7433/app"], "not a WebSocket address"),
        (["--server", "ws://127.0.0.1:1/app", "--db", "DIR/x.db"], "not both"),
        (["--db", "DIR/file/sub/x.db"], "cannot create the folder"),
        (["--db", "DIR"], "is a folder"),
        (["--rate", "0", "--db", "DIR/x.db"], "--rate"),
        (["--duration", "1e17", "--db", "DIR/x.db"], "--duration"),
        (["--server", "wss://127.0.0.1:7433/app", "--ca-file", "DIR/missing.pem"], "cannot read the CA file"),
        (["--state-log", "DIR/missing/s.jsonl", "--db", "DIR/x.db"], "state log"),
    ])
    func badInput(arguments: [String], message: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        _ = try dir.file("file", contents: "not a folder")
        let result = try CLIRunner.run(["demo", "--duration", "1"] + arguments.map { $0.replacingOccurrences(of: "DIR", with: dir.url.path) })
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("x.db").path))
    }

    @Test("an unreachable server is said once on stderr; the demo runs on and exits 0")
    func unreachableServer() throws {
        // A port nothing listens on, held so that no other test's server is given it meanwhile.
        let reserved = try ReservedPort()
        defer { reserved.release() }
        let port = reserved.port
        let result = try CLIRunner.run(["demo", "--server", "ws://127.0.0.1:\(port)/app", "--app", "users", "--duration", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "cannot reach the server").count == 2, "\(result.stderr)")
        #expect(result.stdout.contains("events recorded"))
        #expect(result.stdout.contains("not delivered (the server is away)"))
    }

    @Test("--server takes a list: with the first down, the apps stream to the next, and nothing is said undelivered (issue 38)")
    func serverList() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let reserved = try ReservedPort()
        defer { reserved.release() }
        let db = dir.url.appendingPathComponent("served.db").path
        let serve = try ServeProcess(["--port", "0", "--db", db])
        defer { serve.signal(SIGTERM); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        let list = "ws://127.0.0.1:\(reserved.port)/app,ws://127.0.0.1:\(port)/app"
        let run = try CLIRunner.run(["demo", "--server", list, "--app", "breweries", "--duration", "2", "--rate", "20"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("not delivered"), "\(run.stdout)")
        let uuid = try #require(Self.sessions(in: run.stdout)["breweries"], "\(run.stdout)")
        let verify = try CLIRunner.run(["verify", "--db", db, uuid])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let wrong = try CLIRunner.run(["demo", "--server", "ws://127.0.0.1:\(port)/app,localhost:7433", "--duration", "1"])
        #expect(wrong.status == 2 && wrong.stderr == "--server: 'localhost:7433' is not a WebSocket address such as ws://127.0.0.1:7433/app\n", "\(wrong.stderr)")
    }

    @Test("a server started with a token: the demo's token lets it in; a wrong one is named as the reason")
    func tokenServer() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("served.db").path
        let serve = try ServeProcess(["--port", "0", "--db", db, "--token", "s3cret"])
        defer { serve.signal(SIGTERM); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        let url = "ws://127.0.0.1:\(port)/app"

        let good = try CLIRunner.run(["demo", "--server", url, "--token", "s3cret", "--app", "breweries",
                                      "--duration", "2", "--rate", "20"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(!good.stderr.contains("cannot reach"), "\(good.stderr)")
        #expect(!good.stdout.contains("not delivered"), "\(good.stdout)")
        let uuid = try #require(Self.sessions(in: good.stdout)["breweries"])
        let verify = try CLIRunner.run(["verify", "--db", db, uuid])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        let bad = try CLIRunner.run(["demo", "--server", url, "--app", "breweries", "--duration", "3"],
                                    environment: ["REWIND_TOKEN": "wrong"])
        #expect(bad.status == 0, "\(bad.stderr)")
        let line = try #require(bad.stderr.split(separator: "\n").first { $0.contains("cannot reach the server") })
        #expect(line.contains("refused the connection"), "the reason is named: \(line)")
    }
}

extension JSONValue {
    /// The string this value is, if it is one.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
