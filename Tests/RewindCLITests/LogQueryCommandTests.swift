import Foundation
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

@Suite("rewind sessions and rewind log", .ownThreads)
struct LogQueryCommandTests {
    @Test("sessions lists each session with its times and counts")
    func sessions() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["sessions"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
        ID  UUID      RUN  APP      VERSION  STARTED                  ENDED                    EVENTS  KEYFRAMES
         1  3f2a0000  -    Counter  1.2      2023-11-14 22:13:20.000  interrupted                   9          8
         2  9c1d0000  -    Other    -        2023-11-14 22:14:20.000  2023-11-14 22:18:20.000     201          5

        """)
    }

    @Test("sessions --json prints one object per session per line")
    func sessionsJSON() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["sessions", "--json"])
        #expect(result.status == 0)
        let lines = try jsonLines(result.stdout)
        #expect(lines.count == 2)
        #expect(lines[0] == [
            "id": 1, "uuid": .string(LogFixture.counterUUID), "app": "Counter", "startedAt": 1_700_000_000, "endedAt": .null,
            "live": false, "state": "interrupted", "events": 9, "keyframes": 8, "lastSeq": 8, "meta": ["version": "1.2"], "replayOf": .null,
            "run": .null, "branch": .null, "note": .null, "appVersion": "1.2", "device": .null, "os": .null, "tags": [], "crash": .null,
        ])
        #expect(lines[1]["endedAt"] == 1_700_000_300)
        #expect(lines[1]["live"] == false)
        #expect(lines[1]["state"] == "ended")
        #expect(lines[1]["events"] == 201)
    }

    @Test("log lists seq, time, type, duration and a summary of each action")
    func log() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["log", "1"])
        #expect(result.status == 0)
        #expect(result.stdout == """
        SEQ  TIME                     TYPE         DURATION  ACTION
          0  2023-11-14 22:13:20.000  @@INIT            0ns  keyframe
          1  2023-11-14 22:13:21.000  increment       1.5µs  keyframe
          2  2023-11-14 22:13:22.000  user/rename     3.0µs  {"name":"Grace"}  ← 1  keyframe
          3  2023-11-14 22:13:23.000  todo/add        4.5µs  {"title":"milk"}  keyframe
          4  2023-11-14 22:13:24.000  increment       800ns  coalesced
          5  2023-11-14 22:13:25.000  increment       7.5µs  keyframe
          6  2023-11-14 22:13:26.000  todo/toggle     9.0µs  {"index":0}  keyframe
          7  2023-11-14 22:13:27.000  login          10.5µs  {"user":"grace"}  keyframe
          8  2023-11-14 22:13:28.000  logout         12.0µs  keyframe

        """)
    }

    @Test("log filters by seq range, type glob, words and count", arguments: [
        (["--from", "2", "--to", "3"], [2, 3]),
        (["--type", "increment"], [1, 4, 5]),
        (["--type", "todo/*"], [3, 6]),
        (["--grep", "grace"], [2, 7]),
        (["--grep", "milk", "--type", "todo/*"], [3]),
        (["--from", "3", "--limit", "2"], [3, 4]),
        (["--type", "nothing*"], []),
    ] as [([String], [Int64])])
    func logFilters(options: [String], seqs: [Int64]) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["log", "3f2a", "--json"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try jsonLines(result.stdout).map { $0["seq"]?.numberValue?.int64Value } == seqs)
        let text = try fixture.run(["log", "1"] + options)
        #expect(text.stdout.split(separator: "\n").dropFirst().map { Int64($0.split(separator: " ")[0]) } == seqs)
    }

    @Test("log --json gives every field of an event")
    func logJSON() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["log", "3f2a", "--json", "--from", "2", "--to", "4"])
        let lines = try jsonLines(result.stdout)
        #expect(lines == [
            ["seq": 2, "at": 1_700_000_002, "type": "user/rename", "action": ["type": "user/rename", "name": "Grace"],
             "durationNs": 3_000, "cause": 1, "coalesced": false, "keyframe": true, "site": .null],
            ["seq": 3, "at": 1_700_000_003, "type": "todo/add", "action": ["type": "todo/add", "title": "milk"],
             "durationNs": 4_500, "cause": .null, "coalesced": false, "keyframe": true, "site": .null],
            ["seq": 4, "at": 1_700_000_004, "type": "increment", "action": ["type": "increment"],
             "durationNs": 800, "cause": .null, "coalesced": true, "keyframe": false, "site": .null],
        ])
    }

    @Test("log: an unknown session, a seq past the end and a missing log exit 2 with one sentence")
    func logErrors() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let unknown = try fixture.run(["log", "77"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "No session named '77' in \(fixture.path): no id or uuid matches it.\n")
        let beyond = try fixture.run(["log", "1", "--from", "9"])
        #expect(beyond.status == 2)
        #expect(beyond.stderr == "Session 1 has no seq 9: its last seq is 8.\n")
        let missing = fixture.directory.url.appendingPathComponent("missing.db").path
        let noLog = try CLIRunner.run(["log", "1", "--db", missing])
        #expect(noLog.status == 2)
        #expect(noLog.stderr == "no log at \(missing): record or import a session first, or name one with --db\n")
        let fromEnvironment = try CLIRunner.run(["sessions"], environment: ["REWIND_DB": fixture.path])
        #expect(fromEnvironment.status == 0)
        #expect(fromEnvironment.stdout.contains("Counter"))
    }

    @Test("an empty session: log lists nothing, state has no seq, verify passes")
    func emptySession() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let writer = try LogWriter(path: fixture.path)
        let id = try writer.openSession(uuid: "e0e0", app: "Empty", startedAt: LogFixture.start.addingTimeInterval(600))
        writer.close()
        let log = try fixture.run(["log", "e0e0"])
        #expect(log.status == 0)
        #expect(log.stdout == "")
        let state = try fixture.run(["state", "latest@0"])
        #expect(state.status == 2)
        #expect(state.stderr == "Session \(id) has no events yet, so it has no seq 0.\n")
        let verify = try fixture.run(["verify", "e0e0"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "session \(id) (e0e0, Empty): ok, 0 events, 0 keyframes\n")
    }
}
