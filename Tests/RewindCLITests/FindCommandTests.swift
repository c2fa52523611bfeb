import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// `rewind find` on the fixture log: session 1's count goes 0, 1, 1, 1, 1, 3…; its user is
/// renamed Grace at seq 2 and replaced by the string "anonymous" at seq 8.
@Suite("rewind find", .ownThreads)
struct FindCommandTests {
    @Test("prints where the condition starts to hold; --all where it stops; --json one object per hit")
    func startsAndStops() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let text = try fixture.run(["find", "1", "/user/name", "--is", #""Grace""#])
        #expect(text.status == 0)
        #expect(text.stdout == """
            SEQ  TIME                     EVENT   ACTION                        VALUE
              2  2023-11-14 22:13:22.000  starts  user/rename {"name":"Grace"}  "Grace"

            """)
        let all = try jsonLines(try fixture.run(["find", "1", "/user/name", "--is", #""Grace""#, "--all", "--json"]).stdout)
        #expect(all.map { $0["seq"] } == [2, 8])
        #expect(all.map { $0["event"] } == ["starts", "stops"])
        #expect(all[1]["exists"] == false && all[1]["value"] == .null && all[1]["previous"] == "Grace")
        #expect(all[0]["action"] == ["type": "user/rename", "name": "Grace"])
    }

    @Test("--changed lists every change old → new; --first stops at the first; --gt and --lt compare numbers")
    func changedFirstAndNumbers() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let changed = try jsonLines(try fixture.run(["find", "1", "/count", "--changed", "--json"]).stdout)
        #expect(changed.map { $0["seq"] } == [1, 5])
        #expect(changed.map { $0["previous"] } == [0, 1])
        let first = try jsonLines(try fixture.run(["find", "1", "/count", "--changed", "--first", "--json"]).stdout)
        #expect(first.map { $0["seq"] } == [1])
        let above = try jsonLines(try fixture.run(["find", "1", "/count", "--gt", "2", "--json"]).stdout)
        #expect(above.map { $0["seq"] } == [5])
        let below = try jsonLines(try fixture.run(["find", "1", "/count", "--lt", "1", "--all", "--json"]).stdout)
        #expect(below.map { $0["seq"] } == [0, 1])
        let missing = try jsonLines(try fixture.run(["find", "1", "/user/loggedIn", "--exists", "--all", "--json"]).stdout)
        #expect(missing.map { $0["seq"] } == [7, 8])
    }

    @Test("nothing found exits 1 and prints nothing; --all-sessions lists where it ever held, --app narrows")
    func everywhereAndNothing() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let none = try fixture.run(["find", "1", "/count", "--gt", "99"])
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.isEmpty)
        let everywhere = try fixture.run(["find", "--all-sessions", "/n", "--gt", "198", "--json"])
        #expect(everywhere.status == 0)
        let lines = try jsonLines(everywhere.stdout)
        #expect(lines.map { $0["seq"] } == [199])
        #expect(lines.map { $0["app"] } == ["Other"])
        #expect(lines[0]["session"] == .string(LogFixture.otherUUID))
        #expect(try fixture.run(["find", "--all-sessions", "/n", "--gt", "198", "--app", "Counter"]).status == 1)
        let table = try fixture.run(["find", "--all-sessions", "/count", "--exists"])
        #expect(table.stdout.contains("Counter  0\n"))
    }

    @Test("a path that never exists in the session is said on stderr, with the nearest path that does", arguments: [
        ("/cuont", "/count"), ("/user/nmae", "/user/name"), ("/todos/0/titel", "/todos/0/title"), ("/Todos/5", "/todos/0"),
        ("/count/deeper", "/count"), ("/zzzzzz", nil),
        ("/cnt", "/count"),
    ])
    func neverExists(path: String, nearest: String?) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["find", "1", path, "--gt", "100"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let said = "rewind find: \(path) never exists in session 1 (no state from seq 0 to 8 has a value there); "
            + (nearest.map { "the nearest path that does is \($0)" } ?? "no path near it exists either") + "\n"
        #expect(result.stderr == said)
        // Found or not, the note goes to stderr only: --json stays one object per hit.
        let json = try fixture.run(["find", "1", path, "--missing", "--json"])
        #expect(json.status == 0 && json.stderr == said)
        #expect(try jsonLines(json.stdout).map { $0["seq"] } == [0])
        // A path that exists somewhere gets no note, whatever the condition finds.
        let exists = try fixture.run(["find", "1", "/user/loggedIn", "--gt", "100"])
        #expect(exists.status == 1 && exists.stderr.isEmpty)
        // A scan that stops early (--first) cannot tell, and says nothing.
        #expect(try fixture.run(["find", "1", path, "--missing", "--first"]).stderr.isEmpty)
    }

    @Test("a missing or doubled condition, a bad pointer, bad JSON and a bad regex each exit 2 or 64 with one sentence", arguments: [
        (["find", "1", "/count"], "give exactly one condition"),
        (["find", "1", "/count", "--exists", "--missing"], "give exactly one condition"),
        (["find", "1", "count", "--exists"], "count"),
        (["find", "1", "/count", "--is", "Grace"], "--is 'Grace' is not JSON"),
        (["find", "1", "/user/name", "--matches", "("], "--matches: the pattern /(/ is not a regular expression find can run: a missing ')' at character 2"),
        (["find", "/count", "--exists"], "give SESSION and PATH"),
        (["find", "nope", "/count", "--exists"], "nope"),
    ])
    func refusals(arguments: [String], message: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(arguments)
        #expect(result.status == 2 || result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
