import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// `rewind branch` against `rewind serve` with `rewind demo` connected: the demo's own reducer
/// recomputes the session; without the app, one sentence.
@Suite("rewind branch", .ownThreads)
struct BranchCommandTests {
    /// `rewind serve` with `rewind demo`'s breweries app streaming to it; ``stop()`` ends both.
    final class ServedDemo {
        let dir: TemporaryDirectory
        let db: String
        let serve: ServeProcess
        let port: Int
        let demo: RunningCLI

        init() throws {
            dir = try TemporaryDirectory()
            db = dir.path("served.db")
            serve = try ServeProcess(["--port", "0", "--db", db])
            guard let port = serve.port() else { throw FixtureFailure(message: "rewind serve did not start: \(serve.text)") }
            self.port = port
            demo = try RunningCLI(["demo", "--server", "ws://127.0.0.1:\(port)/app", "--app", "breweries", "--rate", "40", "--duration", "60"])
        }

        /// The demo's session as `rewind sessions --json` lists it, once it has a few recorded
        /// actions (`nil` if it has none within a minute).
        func sessionWithActions() throws -> JSONValue? {
            let deadline = Date(timeIntervalSinceNow: 60)
            while Date() < deadline {
                let listed = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
                if let session = listed.first(where: { ($0["lastSeq"]?.numberValue?.int64Value ?? 0) >= 6 }) { return session }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return nil
        }

        func stop() {
            demo.stop()
            serve.signal(SIGTERM)
            _ = serve.waitForExit()
            dir.cleanup()
        }
    }

    @Test("skips and edits through the live app: a linked branch whose seqs line up; with the app gone, one sentence")
    func branchThroughTheDemo() throws {
        let served = try ServedDemo()
        defer { served.stop() }
        let db = served.db, port = served.port, demo = served.demo
        let original = try served.sessionWithActions()
        let session = try #require(original?["uuid"]?.string)
        let edit = #"3={"type":"breweries/city/changed","city":"Zanzibar"}"#
        let result = try CLIRunner.run(["branch", session, "--skip", "2", "--edit", edit, "--server", "ws://127.0.0.1:\(port)"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("branched into session ") == true, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("first difference from the original at seq ") }, "\(result.stdout)")
        let branch = try #require(lines.first?.split(separator: " ")[3].trimmingCharacters(in: [":"]))
        // The branch is in the server's log, linked and marked, with the skipped action in place.
        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
        let made = try #require(sessions.first { $0["uuid"]?.string == branch })
        #expect(made["replayOf"]?.string == session)
        #expect(made["meta"]?["branch"]?["skipped"] == [2])
        let events = try jsonLines(try CLIRunner.run(["log", branch, "--json", "--db", db, "--to", "3"]).stdout)
        #expect(events[2]["type"] == "@@rewind/skipped")
        #expect(events[3]["action"] == ["type": "breweries/city/changed", "city": "Zanzibar"])
        let state = try JSONValue(parsing: try CLIRunner.run(["state", "\(branch)@3", "--path", "/city", "--db", db]).stdout)
        #expect(state == "Zanzibar")

        demo.signal(SIGTERM)
        _ = demo.waitForExit()
        let offline = try CLIRunner.run(["branch", session, "--skip", "2", "--server", "ws://127.0.0.1:\(port)"])
        #expect(offline.status == 1)
        #expect(offline.stderr.contains("a branch needs the app's reducer"), "\(offline.stderr)")
    }

    @Test("latest is resolved once: the branch is compared with its original, keeps its times, is listed under it, and latest stays the original")
    func branchOfLatest() throws {
        let served = try ServedDemo()
        defer { served.stop() }
        let db = served.db, port = served.port
        let original = try served.sessionWithActions()
        let session = try #require(original?["uuid"]?.string)
        let server = "ws://127.0.0.1:\(port)"
        // An edit that surely changes the state at seq 4: the two differ from there on.
        let edit = #"4={"type":"breweries/city/changed","city":"Zanzibar"}"#
        let result = try CLIRunner.run(["branch", "latest", "--edit", edit, "--server", server])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("first difference from the original at seq 4"), "\(result.stdout)")
        let branch = try #require(result.stdout.split(separator: "\n").first?.split(separator: " ")[3].trimmingCharacters(in: [":"]))

        let sessions = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
        let made = try #require(sessions.first { $0["uuid"]?.string == branch })
        let originalID = try #require(sessions.first { $0["uuid"]?.string == session }?["id"])
        #expect(made["replayOf"]?.string == session)
        #expect(made["branch"] == ["of": .string(session), "ofId": originalID, "skipped": [], "edited": [4]])
        #expect(made["note"] == .string("branch of \(originalID.serialized()): edited 4"))
        // Listed right after its original, not as one more store of the run.
        let order = sessions.compactMap { $0["uuid"]?.string }
        #expect(order.firstIndex(of: branch) == order.firstIndex(of: session).map { $0 + 1 })
        let table = try CLIRunner.run(["sessions", "--db", db]).stdout
        #expect(table.contains("branch of \(originalID.serialized()): edited 4"), "\(table)")

        // Seq 0 and every action keep the original's times.
        let branchLog = try jsonLines(try CLIRunner.run(["log", branch, "--json", "--db", db, "--to", "5"]).stdout)
        let originalLog = try jsonLines(try CLIRunner.run(["log", session, "--json", "--db", db, "--to", "5"]).stdout)
        #expect(branchLog.count == 6)
        #expect(branchLog.map { $0["at"] } == originalLog.map { $0["at"] })
        #expect(made["startedAt"] == original?["startedAt"])

        // `latest` is still the recording, so branching it again branches the original.
        let latest = try jsonLines(try CLIRunner.run(["log", "latest", "--json", "--db", db, "--to", "0"]).stdout)
        let originalFirst = try jsonLines(try CLIRunner.run(["log", session, "--json", "--db", db, "--to", "0"]).stdout)
        #expect(latest == originalFirst)
        let again = try CLIRunner.run(["branch", "latest", "--skip", "4", "--server", server])
        #expect(again.status == 0, "\(again.stderr)")
        let second = try #require(again.stdout.split(separator: "\n").first?.split(separator: " ")[3].trimmingCharacters(in: [":"]))
        let listed = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
        #expect(listed.first { $0["uuid"]?.string == second }?["replayOf"]?.string == session)
    }

    @Test("what is not a seq or not JSON is refused before anything is sent", arguments: [
        (["--skip", "two"], "--skip 'two' must list seqs"),
        (["--edit", "3"], "--edit '3' must be SEQ=JSON"),
        (["--edit", "3={oops"], "--edit 3: the action is not JSON"),
        ([String](), "give --skip SEQ[,SEQ…] or --edit SEQ=JSON"),
    ])
    func refusals(arguments: [String], message: String) throws {
        let result = try CLIRunner.run(["branch", "latest", "--server", "ws://127.0.0.1:1"] + arguments)
        #expect(result.status == 2 || result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
