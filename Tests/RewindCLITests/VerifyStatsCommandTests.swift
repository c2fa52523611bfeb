import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("rewind verify and rewind stats", .ownThreads)
struct VerifyStatsCommandTests {
    @Test("verify passes every session of a sound log and exits 0")
    func verifyPasses() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["verify"])
        #expect(result.status == 0)
        #expect(result.stdout == """
        session 1 (3f2a0000, Counter): ok, 9 events, 8 keyframes
        session 2 (9c1d0000, Other): ok, 201 events, 5 keyframes

        """)
        #expect(result.stderr == "", "no progress when standard error is not a terminal")
        let one = try fixture.run(["verify", "9c1d"])
        #expect(one.status == 0)
        #expect(one.stdout == "session 2 (9c1d0000, Other): ok, 201 events, 5 keyframes\n")
    }

    @Test("verify reports the first problem by seq and exits 1", arguments: [
        ("UPDATE events SET hash = 12345 WHERE session_id = 2 AND seq = 120", "seq 120: hash does not match the state the patches give"),
        ("UPDATE keyframes SET state = '{}' WHERE session_id = 2 AND seq = 100", "seq 100: the keyframe differs from the state the patches give"),
        ("DELETE FROM events WHERE session_id = 2 AND seq = 77", "seq 77: no event is stored, but seq 78 is"),
    ])
    func verifyFails(sql: String, problem: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        try fixture.corrupt(sql)
        let result = try fixture.run(["verify"])
        #expect(result.status == 1)
        #expect(result.stdout == """
        session 1 (3f2a0000, Counter): ok, 9 events, 8 keyframes
        session 2 (9c1d0000, Other): FAILED: \(problem)

        """)
        #expect(result.stderr == "session 2 (9c1d0000, Other): \(problem)\n")
        let json = try jsonLines(try fixture.run(["verify", "--json"]).stdout)
        #expect(json.map { $0["ok"] } == [true, false])
        #expect(json[1]["problem"]?["message"] == .string(problem))
        #expect(json[0]["problem"] == .null)
        #expect(try fixture.run(["verify", "1"]).status == 0)
    }

    @Test("verify: an unknown session or a missing log exits 2")
    func verifyErrors() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        #expect(try fixture.run(["verify", "12"]).status == 2)
        let notALog = try fixture.directory.file("notes.txt", contents: "hello, not a database at all, just text that is long enough")
        let result = try CLIRunner.run(["verify", "--db", notALog])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("\(notALog) is not a Rewind log"))
    }

    @Test("stats gives counts, sizes and the ratio to whole states, for the log and one session")
    func stats() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let text = try fixture.run(["stats"])
        #expect(text.status == 0)
        for label in ["log", "sessions", "events", "keyframes", "stored", "bytes per event", "states whole"] {
            #expect(text.stdout.contains("\n\(label) ") || text.stdout.hasPrefix("\(label) "), "\(label)")
        }
        #expect(text.stdout.contains("\nsmaller by ") || text.stdout.contains("\nlarger by "))
        let json = try JSONValue(parsing: try fixture.run(["stats", "--json"]).stdout)
        #expect(json["events"] == 210)
        #expect(json["keyframes"] == 13)
        let fileBytes = try #require(json["fileBytes"]?.numberValue?.int64Value)
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.path)
        #expect(fileBytes == (attributes[.size] as? NSNumber)?.int64Value)
        #expect(json["sessions"]?.arrayValue?.count == 2)
        let session = try JSONValue(parsing: try fixture.run(["stats", "2", "--json"]).stdout)
        #expect(session["session"] == 2)
        #expect(session["events"] == 201)
        #expect(session["keyframes"] == 5)
        // 201 states of about 1.35 KB each, estimated from the keyframes.
        let state = LogFixtureState.otherStateBytes
        let whole = try #require(session["wholeStateBytes"]?.numberValue?.int64Value)
        #expect(abs(Double(whole) - Double(201 * state)) / Double(201 * state) < 0.01)
        let stored = try #require(session["storedBytes"]?.numberValue?.int64Value)
        let ratio = try #require(session["timesSmaller"]?.numberValue?.doubleValue)
        #expect(abs(ratio - Double(whole) / Double(stored)) < 0.01)
        #expect(try fixture.run(["stats", "nope"]).status == 2)
    }

    @Test("stats says the ratio the right way round: a tiny session is larger than its states whole, a long one smaller")
    func ratioBothWays() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        for session in ["1", "2"] {
            let json = try JSONValue(parsing: try fixture.run(["stats", session, "--json"]).stdout)
            let stored = try #require(json["storedBytes"]?.numberValue?.doubleValue)
            let whole = try #require(json["wholeStateBytes"]?.numberValue?.doubleValue)
            let text = try fixture.run(["stats", session]).stdout
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("smaller by") || $0.hasPrefix("larger by") })
            let factor = try #require(Double(line.split(separator: " ").dropFirst(2).first?.dropLast() ?? ""), "\(line)")
            if stored > whole {
                // 9 small states cost a page or more: larger, by stored / whole, never "smaller by 0.14×".
                #expect(line.hasPrefix("larger by "), "\(line)")
                #expect(abs(factor - stored / whole) / (stored / whole) < 0.05, "\(line)")
            } else {
                #expect(line.hasPrefix("smaller by "), "\(line)")
                #expect(abs(factor - whole / stored) / (whole / stored) < 0.05, "\(line)")
            }
            #expect(factor >= 1)
            #expect(line.hasSuffix("× than storing every state whole"))
        }
        let session1 = try JSONValue(parsing: try fixture.run(["stats", "1", "--json"]).stdout)
        #expect((session1["timesSmaller"]?.numberValue?.doubleValue ?? 1) < 1, "the fixture's tiny session is larger than its states")
        let table = try fixture.run(["stats"]).stdout
        #expect(table.contains("VS WHOLE"))
        #expect(table.contains(" larger") && table.contains(" smaller"), "\(table)")
    }

    @Test("every command's --help explains it with an example", arguments: ["sessions", "log", "state", "blame", "verify", "stats", "diff"])
    func help(command: String) throws {
        let result = try CLIRunner.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Example"))
        #expect(result.stdout.contains("--json") || command == "diff")
        #expect(result.stdout.contains("--db"))
    }
}

enum LogFixtureState {
    /// The compact size of the "Other" session's state (its `n` grows from 0 to 200, so the size
    /// varies by two bytes).
    static let otherStateBytes: Int = {
        let state: JSONValue = ["items": .array((0..<50).map { ["id": .number(JSONNumber($0)), "name": .string("item \($0)")] }), "n": 100]
        return state.serializedBytes().count
    }()
}
