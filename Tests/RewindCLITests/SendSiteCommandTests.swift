import Foundation
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

/// Send sites and runs as the commands show them, on a log written with `LogWriter`.
@Suite("Send sites and runs in the command line", .ownThreads)
struct SendSiteCommandTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Three sessions: two of one run (ids 1 and 3), one of another process without a run (2).
    /// Session 1's actions carry send sites, one with a control character in its file name.
    static func makeLog() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("rewind.db").path
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let cart = try writer.openSession(uuid: "aaaa0000-1", app: "Cart", startedAt: start, run: "run11111-x")
        let other = try writer.openSession(uuid: "bbbb0000-2", app: "Other", startedAt: start.addingTimeInterval(1))
        let profile = try writer.openSession(uuid: "cccc0000-3", app: "Profile", startedAt: start.addingTimeInterval(2), run: "run11111-x")
        var builder = EventBuilder(sessionID: cart, policy: LogFixture.keyframesAsBefore)
        var events = [builder.initial(state: ["n": 0], at: start)]
        var first = builder.next(action: ["type": "add"], state: ["n": 1], at: start.addingTimeInterval(1))
        first.site = SendSite(file: "Cart/CartView.swift", line: 42, function: "body")
        var second = builder.next(action: ["type": "add"], state: ["n": 2], at: start.addingTimeInterval(2), cause: 1)
        second.site = SendSite(file: "Cart/Evil\u{1B}[2J.swift", line: 7, function: "load()")
        events += [first, second]
        events.append(builder.next(action: ["type": "reset"], state: ["n": 0], at: start.addingTimeInterval(3)))
        writer.append(events)
        for id in [other, profile] {
            var builder = EventBuilder(sessionID: id, policy: LogFixture.keyframesAsBefore)
            writer.append([builder.initial(state: ["x": 0], at: start)])
        }
        try writer.flush()
        return (directory, path)
    }

    func run(_ arguments: [String], _ path: String) throws -> CLIRunner.Output {
        try CLIRunner.run(arguments + ["--db", path], environment: ["TZ": "UTC", "NO_COLOR": "1"])
    }

    @Test("sessions groups the sessions of a run together and shows the run")
    func sessionsByRun() throws {
        let (directory, path) = try Self.makeLog()
        defer { directory.cleanup() }
        let text = try run(["sessions"], path)
        #expect(text.status == 0)
        let rows = text.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.map { String($0[0]) } == ["1", "3", "2"])
        #expect(rows.map { String($0[2]) } == ["run11111", "run11111", "-"])
        let json = try jsonLines(try run(["sessions", "--json"], path).stdout)
        #expect(json.map { $0["run"] } == ["run11111-x", "run11111-x", .null])
    }

    @Test("log --source shows where each action was sent; --json carries the site")
    func logSource() throws {
        let (directory, path) = try Self.makeLog()
        defer { directory.cleanup() }
        let text = try run(["log", "1", "--source"], path)
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("SOURCE"))
        #expect(lines[2].contains("Cart/CartView.swift:42 body"))
        // What the app recorded never reaches the terminal raw.
        #expect(!text.stdout.contains("\u{1B}"))
        #expect(lines[3].contains(#"Cart/Evil\e[2J.swift:7 load()"#))
        #expect(lines[4].contains(" - "))
        #expect(!(try run(["log", "1"], path).stdout.contains("CartView")))
        let json = try jsonLines(try run(["log", "1", "--json"], path).stdout)
        #expect(json[1]["site"] == ["file": "Cart/CartView.swift", "line": 42, "function": "body"])
        #expect(json[3]["site"] == .null)
    }

    @Test("replay prints each event's send site after its header")
    func replaySite() throws {
        let (directory, path) = try Self.makeLog()
        defer { directory.cleanup() }
        let text = try run(["replay", "1"], path)
        #expect(text.status == 0)
        let headers = text.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(headers[1].hasSuffix("@ Cart/CartView.swift:42 body"))
        #expect(!headers[3].contains("@"))
        let json = try jsonLines(try run(["replay", "1", "--json"], path).stdout)
        #expect(json[1]["site"]?["line"] == 42)
    }
}
