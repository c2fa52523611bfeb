import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// What `rewind replay --into` does to a live app's state is part of the app's session: one
/// `@@rewind/replayed` event whose patch takes the live state to where the replay ended, so the
/// next dispatched action is recorded as itself (not coalesced), blame names the replay for what
/// it changed, and the session verifies. For an app on Rewind's store and one on its own.
@Suite("A replay into a live app is part of its history", .ownThreads)
struct ReplayIntoHistoryTests {
    struct App: CustomTestStringConvertible, Sendable {
        var program: String
        var testDescription: String { program }
    }

    static let apps = [App(program: "RewindShopChild"), App(program: "RewindStoreChild")]

    @Test("replay --into, then dispatch, then blame: the replay is one event of the session; the dispatch is recorded as itself", arguments: apps)
    func replayDispatchBlame(app: App) throws {
        let running = try LinkedApp(program: CLIRunner.locate(app.program), actions: StoreLinkCommandsTests.actions)
        defer { running.stop() }
        let server = "ws://127.0.0.1:\(running.port)"
        let session = running.session

        // Replay seq 1…3 (add 100, add 212, add 12, from the initial state) into the app: its live
        // state, an empty cart and the order placed, becomes three items and no order.
        let replay = try CLIRunner.run(["replay", session, "--from", "1", "--to", "3", "--into", session,
                                        "--server", server, "--db", running.db])
        try #require(replay.status == 0, "\(replay.stderr)")
        try LinkedApp.waitForSeq(7, of: session, in: running.db)
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        let dispatched = try LinkedApp.command(inspector, "d1", "dispatch", session: session, ["action": ["add": ["_0": 7]]])
        #expect(dispatched["ok"] == true, "\(dispatched)")
        try LinkedApp.waitForSeq(8, of: session, in: running.db)

        let events = try running.events(session)
        try #require(events.count == 9, "\(events)")
        let mark = events[7]
        #expect(mark["type"] == "@@rewind/replayed")
        #expect(mark["action"]?["of"]?.string == session)
        #expect(mark["action"]?["from"] == 1)
        #expect(mark["action"]?["to"] == 3)
        #expect(mark["action"]?["actions"] == 3)
        #expect(mark["coalesced"] == false)
        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", running.db]).stdout)
        let replaySession = try #require(sessions.first { $0["replayOf"]?.string == session }?["uuid"]?.string)
        #expect(mark["action"]?["session"]?.string == replaySession)
        // The replay's session records where the app sent each action, as the original did
        // (issue 41: it showed `-` on every row).
        let replayed = try running.events(replaySession)
        let originalSites = events[1...3].map { $0["site"] }
        #expect(replayed.dropFirst().map { $0["site"] } == Array(originalSites), "\(replayed)")
        if app.program == "RewindShopChild" { #expect(originalSites.allSatisfy { $0 != nil && $0 != .null }, "\(events)") }
        // The dispatch is recorded as what it did: one item more, not coalesced.
        #expect(events[8]["type"] == "add")
        #expect(events[8]["coalesced"] == false)
        let state = try JSONValue(parsing: try CLIRunner.run(["state", "\(session)@8", "--db", running.db]).stdout)
        #expect(state == ["cart": [100, 212, 12, 7], "total": 331])
        let diff = try CLIRunner.run(["diff", "\(session)@7", "\(session)@8", "--db", running.db])
        #expect(diff.status == 0 || diff.status == 1, "\(diff.stderr)")
        #expect(diff.stdout.contains("/cart/3"), "\(diff.stdout)")
        #expect(!diff.stdout.contains("lastOrder"), "\(diff.stdout)")

        // Blame: the replay removed /lastOrder, the dispatch added one item.
        let lastOrder = try jsonLines(try CLIRunner.run(["blame", session, "/lastOrder", "--json", "--db", running.db]).stdout)
        #expect(lastOrder.map { $0["seq"] } == [6, 7], "\(lastOrder)")
        #expect(lastOrder.last?["type"] == "@@rewind/replayed")
        let item = try jsonLines(try CLIRunner.run(["blame", session, "/cart/3", "--json", "--db", running.db]).stdout)
        #expect(item.map { $0["seq"] } == [8], "\(item)")
        // Find and verify agree.
        let missing = try CLIRunner.run(["find", session, "/lastOrder", "--missing", "--json", "--db", running.db])
        #expect(missing.status == 0, "\(missing.stderr)")
        #expect(try jsonLines(missing.stdout).map { $0["seq"] } == [0, 7], "\(missing.stdout)")
        let verify = try CLIRunner.run(["verify", session, "--db", running.db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        // A second replay across the first one's mark sets the state the mark recorded.
        let again = try CLIRunner.run(["replay", session, "--from", "6", "--to", "8", "--into", session,
                                       "--server", server, "--db", running.db])
        #expect(again.status == 0, "\(again.stderr)")
        try LinkedApp.waitForSeq(9, of: session, in: running.db)
        let end = try JSONValue(parsing: try CLIRunner.run(["state", "\(session)@9", "--db", running.db]).stdout)
        #expect(end == ["cart": [100, 212, 12, 7], "total": 331])
    }
}
