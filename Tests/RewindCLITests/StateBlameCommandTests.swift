import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("rewind state, rewind blame and rewind diff on recorded states", .ownThreads)
struct StateBlameCommandTests {
    @Test("state prints the recorded state at every seq, pretty or compact")
    func state() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        for (seq, expected) in LogFixture.counterStates.enumerated() {
            let result = try fixture.run(["state", "1@\(seq)", "--compact"])
            #expect(result.status == 0)
            #expect(try JSONValue(parsing: result.stdout) == expected, "seq \(seq)")
            #expect(result.stdout == expected.serialized() + "\n")
        }
        let pretty = try fixture.run(["state", "1@2"])
        #expect(pretty.stdout == """
        {
          "count": 1,
          "user": {
            "name": "Grace"
          },
          "todos": []
        }

        """)
    }

    @Test("state --path prints the value at a pointer; @last names the last seq; --json wraps it")
    func statePath() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        #expect(try fixture.run(["state", "1@3", "--path", "/todos/0/title"]).stdout == "\"milk\"\n")
        #expect(try fixture.run(["state", "1@last", "--path", "/user"]).stdout == "\"anonymous\"\n")
        #expect(try fixture.run(["state", "2@last", "--path", "/n"]).stdout == "200\n")
        #expect(try fixture.run(["state", "latest@last", "--path", "/n"]).stdout == "200\n", "latest is the session started last")
        let json = try fixture.run(["state", "1@6", "--path", "/todos/0", "--json"])
        #expect(try JSONValue(parsing: json.stdout) == ["session": 1, "seq": 6, "path": "/todos/0", "value": ["title": "milk", "done": true]])
    }

    @Test("state: bad references, seqs past the end, bad pointers and absent paths exit 2 with one sentence", arguments: [
        (["state", "1@9"], "Session 1 has no seq 9: its last seq is 8."),
        (["state", "1"], "'1' does not name a state: write SESSION@SEQ, such as latest@42 or 3@last"),
        (["state", "1@x"], "'1@x' does not name a state: write SESSION@SEQ, such as latest@42 or 3@last"),
        (["state", "5@0"], "No session named '5' in LOG: no id or uuid matches it."),
        (["state", "1@0", "--path", "user"], "'user' is not a JSON Pointer: must be empty or start with '/' (write /user/name, or \"\" for the whole state)"),
        (["state", "1@0", "--path", "/user/age"], "/user/age names nothing in the state after seq 0 of session 1"),
    ])
    func stateErrors(arguments: [String], message: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == message.replacingOccurrences(of: "LOG", with: fixture.path) + "\n")
    }

    @Test("blame lists the actions that changed a path, with before and after")
    func blame() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["blame", "1", "/user/name"])
        #expect(result.status == 0)
        #expect(result.stdout == """
        SEQ  TIME                     TYPE         CHANGE
          0  2023-11-14 22:13:20.000  @@INIT       + "Ada"
          2  2023-11-14 22:13:22.000  user/rename  ~ "Ada" → "Grace"
          8  2023-11-14 22:13:28.000  logout       - "Grace"

        """)
        let ancestors = try fixture.run(["blame", "1", "/user"])
        #expect(ancestors.stdout.split(separator: "\n").dropFirst().map { Int($0.split(separator: " ")[0]) } == [0, 2, 7, 8])
        let nothing = try fixture.run(["blame", "1", "/nothing"])
        #expect(nothing.status == 0)
        #expect(nothing.stdout == "")
    }

    @Test("blame --json: one object per event, before and after left out when absent")
    func blameJSON() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let lines = try jsonLines(try fixture.run(["blame", "1", "/user/name", "--json"]).stdout)
        #expect(lines == [
            ["seq": 0, "at": 1_700_000_000, "type": "@@INIT", "action": ["type": "@@INIT"], "after": "Ada", "ops": []],
            ["seq": 2, "at": 1_700_000_002, "type": "user/rename", "action": ["type": "user/rename", "name": "Grace"],
             "before": "Ada", "after": "Grace", "ops": [["op": "replace", "path": "/user/name", "value": "Grace"]]],
            ["seq": 8, "at": 1_700_000_008, "type": "logout", "action": "logout", "before": "Grace",
             "ops": [["op": "replace", "path": "/user", "value": "anonymous"]]],
        ])
    }

    @Test("blame: a bad pointer or an unknown session exits 2")
    func blameErrors() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let bad = try fixture.run(["blame", "1", "/a~2"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "'/a~2' is not a JSON Pointer: '~' at offset 2 must be followed by '0' or '1' (write /user/name, or \"\" for the whole state)\n")
        #expect(try fixture.run(["blame", "zz", "/a"]).status == 2)
    }

    @Test("diff takes SESSION@SEQ for either side, and patch for its document")
    func diffRecorded() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let result = try fixture.run(["diff", "1@0", "1@8"])
        #expect(result.status == 1)
        #expect(result.stdout == """
        ~ /count: 0 → 3
        ~ /user: {"name":"Ada"} → "anonymous"
        + /todos/0: {"title":"milk","done":true}

        """)
        #expect(try fixture.run(["diff", "3f2a@3", "1@4"]).status == 0, "a coalesced event changes nothing")
        let patch = try fixture.run(["diff", "1@5", "1@6", "--format", "patch"])
        #expect(patch.stdout == "[\n  {\"op\":\"replace\",\"path\":\"/todos/0/done\",\"value\":true}\n]\n")
        let file = try fixture.directory.file("expected.json", contents: #"{"count":3,"user":"anonymous","todos":[{"title":"milk","done":true}]}"#)
        #expect(try fixture.run(["diff", file, "1@last"]).status == 0)
        let patchFile = try fixture.directory.file("p.json", contents: patch.stdout)
        let patched = try fixture.run(["patch", "1@5", patchFile, "--compact"])
        #expect(patched.status == 0)
        #expect(try JSONValue(parsing: patched.stdout) == LogFixture.counterStates[6])
        let fromStandardInput = try fixture.run(["diff", "-", "1@1"], stdin: Data(#"{"count":1,"user":{"name":"Ada"},"todos":[]}"#.utf8))
        #expect(fromStandardInput.status == 0)
    }

    @Test("diff: a file whose name looks like SESSION@SEQ is read as the file; a state not in the log exits 2")
    func diffRecordedErrors() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let odd = try fixture.directory.file("1@2", contents: #"{"count":1,"user":{"name":"Grace"},"todos":[]}"#)
        #expect(try fixture.run(["diff", odd, "1@2"]).status == 0)
        let beyond = try fixture.run(["diff", "1@0", "1@99"])
        #expect(beyond.status == 2)
        #expect(beyond.stderr == "Session 1 has no seq 99: its last seq is 8.\n")
        let unknown = try fixture.run(["diff", "1@0", "nope@1"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "No session named 'nope' in \(fixture.path): no id or uuid matches it.\n")
    }
}
