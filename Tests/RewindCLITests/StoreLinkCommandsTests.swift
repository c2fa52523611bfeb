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
    /// add 100, add 212, add 12, remove 1, checkout; the checkout's effect sends placed("order-112").
    static let actions = [#"{"add":{"_0":100}}"#, #"{"add":{"_0":212}}"#, #"{"add":{"_0":12}}"#,
                          #"{"remove":{"_0":1}}"#, #"{"checkout":{}}"#]

    @Test("jump, resume, pause and dispatch from the inspector: the app shows the state, its live state is kept and recorded")
    func inspectorCommands() throws {
        let running = try LinkedApp(program: Self.child, actions: Self.actions)
        defer { running.stop() }
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        #expect(running.waitForPrinted(LinkedApp.state(cart: [], total: 0, lastOrder: "order-112"), after: 0))

        // Jump: the app shows the state at seq 2.
        var printed = running.app.lineCount
        let jumped = try LinkedApp.command(inspector, "j1", "jump", session: running.session, ["seq": 2])
        #expect(jumped["ok"] == true, "\(jumped)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [100, 212], total: 312), after: printed))

        printed = running.app.lineCount
        let dispatchedWhileJumped = try LinkedApp.command(inspector, "d0", "dispatch", session: running.session,
                                                     ["action": ["add": ["_0": 7]]])
        #expect(dispatchedWhileJumped["ok"] == true, "\(dispatchedWhileJumped)")
        // A dispatch from the inspector resumes first, as the user would.
        #expect(running.waitForPrinted(LinkedApp.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))
        try LinkedApp.waitForSeq(7, of: running.session, in: running.db)

        // Jump again, then resume: the live state shows again.
        _ = try LinkedApp.command(inspector, "j2", "jump", session: running.session, ["seq": 1])
        printed = running.app.lineCount
        let resumed = try LinkedApp.command(inspector, "r1", "resume", session: running.session)
        #expect(resumed["ok"] == true, "\(resumed)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))

        // Pause: nothing is recorded until resume; the next event after it is coalesced.
        let paused = try LinkedApp.command(inspector, "p1", "pause", session: running.session)
        #expect(paused["ok"] == true, "\(paused)")
        _ = try LinkedApp.command(inspector, "d1", "dispatch", session: running.session, ["action": ["add": ["_0": 1]]])
        _ = try LinkedApp.command(inspector, "r2", "resume", session: running.session)
        let after = try LinkedApp.command(inspector, "d2", "dispatch", session: running.session, ["action": ["add": ["_0": 2]]])
        #expect(after["ok"] == true, "\(after)\n\(running.app.stderr)")
        try LinkedApp.waitForSeq(8, of: running.session, in: running.db)
        let events = try running.events(running.session)
        try #require(events.count == 9, "\(events)")
        #expect(events[7]["action"] == ["add": ["_0": 7]])
        #expect(events[8]["action"] == ["add": ["_0": 2]])
        #expect(events[8]["coalesced"] == true)
        let state = try JSONValue(parsing: try CLIRunner.run(["state", "\(running.session)@8", "--db", running.db]).stdout)
        #expect(state == ["cart": [7, 1, 2], "total": 10, "lastOrder": "order-112"])

        // An action that does not decode: the app's sentence names the path.
        let bad = try LinkedApp.command(inspector, "d3", "dispatch", session: running.session, ["action": ["add": ["_0": "seven"]]])
        #expect(bad["ok"] == false)
        #expect(bad["message"]?.string?.contains("does not decode at /add/_0") == true, "\(bad)")
    }

    @Test("rewind replay --into and rewind branch from the terminal, through the app's own reducer")
    func terminalCommands() throws {
        let running = try LinkedApp(program: Self.child, actions: Self.actions)
        defer { running.stop() }
        let server = "ws://127.0.0.1:\(running.port)"

        // Replay seq 2…3 (from the state at 1) into the app: a replay session linked to the
        // original, and the app shows each state.
        let printed = running.app.lineCount
        let replay = try CLIRunner.run(["replay", running.session, "--from", "2", "--to", "3", "--into", running.session,
                                        "--server", server, "--db", running.db])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("replayed seq 2…3 into session \(running.session): replayed 2 actions"), "\(replay.stdout)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [100, 212, 12], total: 324), after: printed))
        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", running.db]).stdout)
        let replayed = try #require(sessions.first { $0["replayOf"]?.string == running.session })
        let replaySession = try #require(replayed["uuid"]?.string)
        try LinkedApp.waitForSeq(2, of: replaySession, in: running.db)
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
        #expect(!running.app.stdout.contains(LinkedApp.state(cart: [100, 50], total: 150)))
    }
}
