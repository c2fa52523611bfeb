import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Every command of the inspector and the terminal against a real app on a store of its own
/// (`RewindStoreChild`: its own `Store`, `Reducer` and `Effect`, RewindRecorder alone, a
/// `StoreLink`), streaming to `rewind serve`: jump, resume, pause, dispatch as the browser sends
/// them on `/inspect`, then `rewind replay --into` and `rewind branch`.
@Suite("Commands for a store that is not Rewind's (StoreLink)", .ownThreads)
struct StoreLinkCommandsTests {
    static let child = CLIRunner.locate("RewindStoreChild")

    /// The shop app's state as it prints it (keys sorted).
    static func state(cart: [Int], total: Int, lastOrder: String? = nil) -> String {
        let order = lastOrder.map { #","lastOrder":"\#($0)""# } ?? ""
        return "state {\"cart\":[\(cart.map(String.init).joined(separator: ","))]\(order),\"total\":\(total)}"
    }

    /// A server and the shop app streaming to it, with its first six actions recorded:
    /// add 100, add 212, add 12, remove 1, checkout, and the effect's placed("order-112").
    struct Running {
        let dir: TemporaryDirectory
        let serve: ServeProcess
        let port: Int
        let app: RunningCLI
        let session: String
        var db: String { dir.url.appendingPathComponent("served.db").path }

        init() throws {
            dir = try TemporaryDirectory()
            let db = dir.url.appendingPathComponent("served.db").path
            serve = try ServeProcess(["--port", "0", "--db", db])
            port = try #require(serve.port(), "\(serve.text)")
            let environment = ["REWIND_SERVER": "ws://127.0.0.1:\(port)/app",
                               "REWIND_OUTBOX": dir.url.appendingPathComponent("outbox").path,
                               "REWIND_DB": dir.url.appendingPathComponent("unused.db").path]
            app = try RunningCLI([#"{"add":{"_0":100}}"#, #"{"add":{"_0":212}}"#, #"{"add":{"_0":12}}"#,
                                  #"{"remove":{"_0":1}}"#, #"{"checkout":{}}"#],
                                 environment: environment, program: StoreLinkCommandsTests.child)
            #expect(app.wait { out, _ in out.contains("session ") })
            let line = try #require(app.stdout.split(separator: "\n").first { $0.hasPrefix("session ") })
            session = String(line.dropFirst("session ".count))
            try Self.waitForSeq(6, of: session, in: db)
        }

        func stop() {
            app.stop()
            serve.signal(SIGTERM)
            _ = serve.waitForExit()
            dir.cleanup()
        }

        /// Waits until the server's log holds `seq` of `session`.
        static func waitForSeq(_ seq: Int64, of session: String, in db: String) throws {
            let deadline = Date(timeIntervalSinceNow: 60)
            while Date() < deadline {
                let listed = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
                if listed.contains(where: { $0["uuid"]?.string == session && ($0["lastSeq"]?.numberValue?.int64Value ?? -1) >= seq }) {
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Issue.record("session \(session) did not reach seq \(seq) in \(db)")
        }

        /// The events of `session` in the server's log, as `rewind log --json` prints them.
        func events(_ session: String) throws -> [JSONValue] {
            try jsonLines(try CLIRunner.run(["log", session, "--json", "--db", db]).stdout)
        }

        /// Waits until the app has printed `line` after the first `after` lines of its output.
        func waitForPrinted(_ line: String, after: Int) -> Bool {
            app.wait(timeout: 30) { out, _ in out.split(separator: "\n").dropFirst(after).contains { $0 == line } }
        }
    }

    /// Sends an inspector's command and waits for its answer.
    static func command(_ inspector: DemoInspector, _ id: String, _ kind: String, session: String,
                        _ arguments: JSONObject = [:]) throws -> JSONValue {
        var request: JSONObject = ["type": "command", "id": .string(id), "session": .string(session), "kind": .string(kind)]
        for (key, value) in arguments { request[key] = value }
        inspector.send(.object(request))
        return try #require(inspector.wait(timeout: 30) { $0["id"]?.string == id }, "no answer to \(kind)")
    }

    @Test("jump, resume, pause and dispatch from the inspector: the app shows the state, its live state is kept and recorded")
    func inspectorCommands() throws {
        let running = try Running()
        defer { running.stop() }
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        #expect(running.waitForPrinted(Self.state(cart: [], total: 0, lastOrder: "order-112"), after: 0))

        // Jump: the app shows the state at seq 2.
        var printed = running.app.lineCount
        let jumped = try Self.command(inspector, "j1", "jump", session: running.session, ["seq": 2])
        #expect(jumped["ok"] == true, "\(jumped)")
        #expect(running.waitForPrinted(Self.state(cart: [100, 212], total: 312), after: printed))

        printed = running.app.lineCount
        let dispatchedWhileJumped = try Self.command(inspector, "d0", "dispatch", session: running.session,
                                                     ["action": ["add": ["_0": 7]]])
        #expect(dispatchedWhileJumped["ok"] == true, "\(dispatchedWhileJumped)")
        // A dispatch from the inspector resumes first, as the user would.
        #expect(running.waitForPrinted(Self.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))
        try Running.waitForSeq(7, of: running.session, in: running.db)

        // Jump again, then resume: the live state shows again.
        _ = try Self.command(inspector, "j2", "jump", session: running.session, ["seq": 1])
        printed = running.app.lineCount
        let resumed = try Self.command(inspector, "r1", "resume", session: running.session)
        #expect(resumed["ok"] == true, "\(resumed)")
        #expect(running.waitForPrinted(Self.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))

        // Pause: nothing is recorded until resume; the next event after it is coalesced.
        let paused = try Self.command(inspector, "p1", "pause", session: running.session)
        #expect(paused["ok"] == true, "\(paused)")
        _ = try Self.command(inspector, "d1", "dispatch", session: running.session, ["action": ["add": ["_0": 1]]])
        _ = try Self.command(inspector, "r2", "resume", session: running.session)
        let after = try Self.command(inspector, "d2", "dispatch", session: running.session, ["action": ["add": ["_0": 2]]])
        #expect(after["ok"] == true, "\(after)\n\(running.app.stderr)")
        try Running.waitForSeq(8, of: running.session, in: running.db)
        let events = try running.events(running.session)
        try #require(events.count == 9, "\(events)")
        #expect(events[7]["action"] == ["add": ["_0": 7]])
        #expect(events[8]["action"] == ["add": ["_0": 2]])
        #expect(events[8]["coalesced"] == true)
        let state = try JSONValue(parsing: try CLIRunner.run(["state", "\(running.session)@8", "--db", running.db]).stdout)
        #expect(state == ["cart": [7, 1, 2], "total": 10, "lastOrder": "order-112"])

        // An action that does not decode: the app's sentence names the path.
        let bad = try Self.command(inspector, "d3", "dispatch", session: running.session, ["action": ["add": ["_0": "seven"]]])
        #expect(bad["ok"] == false)
        #expect(bad["message"]?.string?.contains("does not decode at /add/_0") == true, "\(bad)")
    }

    @Test("rewind replay --into and rewind branch from the terminal, through the app's own reducer")
    func terminalCommands() throws {
        let running = try Running()
        defer { running.stop() }
        let server = "ws://127.0.0.1:\(running.port)"

        // Replay seq 2…3 (from the state at 1) into the app: a replay session linked to the
        // original, and the app shows each state.
        let printed = running.app.lineCount
        let replay = try CLIRunner.run(["replay", running.session, "--from", "2", "--to", "3", "--into", running.session,
                                        "--server", server, "--db", running.db])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("replayed seq 2…3 into session \(running.session): replayed 2 actions"), "\(replay.stdout)")
        #expect(running.waitForPrinted(Self.state(cart: [100, 212, 12], total: 324), after: printed))
        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", running.db]).stdout)
        let replayed = try #require(sessions.first { $0["replayOf"]?.string == running.session })
        let replaySession = try #require(replayed["uuid"]?.string)
        try Running.waitForSeq(2, of: replaySession, in: running.db)
        let replayEvents = try running.events(replaySession)
        #expect(replayEvents.dropFirst().map { $0["action"] } == [["add": ["_0": 212]], ["add": ["_0": 12]]])

        // Branch: leave out seq 2 and replace seq 3; the app's reducer recomputes it, its live
        // state untouched.
        let branch = try CLIRunner.run(["branch", running.session, "--skip", "2", "--edit", #"3={"add":{"_0":50}}"#,
                                        "--server", server])
        #expect(branch.status == 0, "\(branch.stderr)")
        let lines = branch.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("branched into session ") == true, "\(branch.stdout)")
        #expect(lines.contains("first difference from the original at seq 2"), "\(branch.stdout)")
        let made = try #require(lines.first?.split(separator: " ")[3].trimmingCharacters(in: [":"]))
        let total = try JSONValue(parsing: try CLIRunner.run(["state", "\(made)@6", "--path", "/total", "--db", running.db]).stdout)
        #expect(total == 0)
        let cart = try JSONValue(parsing: try CLIRunner.run(["state", "\(made)@4", "--path", "/cart", "--db", running.db]).stdout)
        // 100, then 50 (212 left out), then remove(1) takes the 50 away.
        #expect(cart == [100])
        // Effects do not run in a branch: the order the effect placed is the recorded action.
        let order = try JSONValue(parsing: try CLIRunner.run(["state", "\(made)@6", "--path", "/lastOrder", "--db", running.db]).stdout)
        #expect(order == "order-112")
        // The app's live state was not touched.
        #expect(!running.app.stdout.contains(Self.state(cart: [100, 50], total: 150)))
    }
}
