import Foundation
import Testing
import RewindTestSupport

@Suite("rewind diff", .ownThreads)
struct DiffCommandTests {
    static let before = #"{"user":{"name":"Ada","age":36},"tags":["x","y"],"items":[{"id":1,"n":"a"},{"id":2,"n":"b"}]}"#
    static let after = #"{"user":{"name":"Grace","age":36},"tags":["y"],"items":[{"id":1,"n":"a"},{"id":3,"n":"c"},{"id":2,"n":"b"}],"new":null}"#

    /// Runs `rewind diff` on two documents written to a temporary directory.
    func diff(_ a: String, _ b: String, _ options: [String] = []) throws -> CLIRunner.Output {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        return try CLIRunner.run(["diff", try dir.file("a.json", contents: a), try dir.file("b.json", contents: b)] + options)
    }

    @Test("prints each change as a line and exits 1")
    func text() throws {
        let result = try diff(Self.before, Self.after)
        #expect(result.status == 1)
        #expect(result.stderr == "")
        #expect(result.stdout == """
        ~ /user/name: "Ada" → "Grace"
        - /tags/0: "x"
        + /items/1: {"id":3,"n":"c"}
        + /new: null

        """)
    }

    @Test("equal documents print nothing and exit 0")
    func equal() throws {
        let result = try diff(#"{"a":1.0,"b":[1,2]}"#, #"{"b":[1,2],"a":1}"#)
        #expect(result.status == 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "")
    }

    @Test("numbers with huge exponents compare exactly instead of crashing", arguments: [
        (#"{"a":1e99999999999999999999}"#, #"{"a":10e99999999999999999998}"#, Int32(0), ""),
        (#"{"a":1e99999999999999999999}"#, #"{"a":1}"#, Int32(1), "~ /a: 1e99999999999999999999 → 1\n"),
        (#"{"a":1e9223372036854775807}"#, #"{"a":1e9223372036854775808}"#, Int32(1),
         "~ /a: 1e9223372036854775807 → 1e9223372036854775808\n"),
        (#"[1e-9223372036854775808]"#, #"[1e-9223372036854775808]"#, Int32(0), ""),
    ])
    func hugeExponents(a: String, b: String, status: Int32, stdout: String) throws {
        let result = try diff(a, b)
        #expect(result.status == status)
        #expect(result.stdout == stdout)
        #expect(result.stderr == "")
    }

    @Test("--format patch and --format inverse print RFC 6902 patches, one operation per line")
    func patches() throws {
        let forward = try diff(Self.before, Self.after, ["--format", "patch"])
        #expect(forward.status == 1)
        #expect(forward.stdout == """
        [
          {"op":"replace","path":"/user/name","value":"Grace"},
          {"op":"remove","path":"/tags/0"},
          {"op":"add","path":"/items/1","value":{"id":3,"n":"c"}},
          {"op":"add","path":"/new","value":null}
        ]

        """)
        let inverse = try diff(Self.before, Self.after, ["--format", "inverse"])
        #expect(inverse.status == 1)
        #expect(inverse.stdout == """
        [
          {"op":"remove","path":"/new"},
          {"op":"remove","path":"/items/1"},
          {"op":"add","path":"/tags/0","value":"x"},
          {"op":"replace","path":"/user/name","value":"Ada"}
        ]

        """)
        let none = try diff("[1]", "[1]", ["--format", "patch"])
        #expect(none.status == 0)
        #expect(none.stdout == "[]\n")
    }

    @Test("the patch it prints turns A into B, and the inverse B into A")
    func patchRoundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try dir.file("a.json", contents: Self.before)
        let b = try dir.file("b.json", contents: Self.after)
        let forward = try dir.file("forward.json", contents: try CLIRunner.run(["diff", a, b, "--format", "patch"]).stdout)
        let inverse = try dir.file("inverse.json", contents: try CLIRunner.run(["diff", a, b, "--format", "inverse"]).stdout)
        let patched = try dir.file("patched.json", contents: try CLIRunner.run(["patch", a, forward]).stdout)
        let restored = try dir.file("restored.json", contents: try CLIRunner.run(["patch", b, inverse]).stdout)
        #expect(try CLIRunner.run(["diff", patched, b]).status == 0)
        #expect(try CLIRunner.run(["diff", restored, a]).status == 0)
    }

    @Test("colours only when asked (standard output here is a pipe)")
    func colour() throws {
        let auto = try diff(#"{"a":1}"#, #"{"a":2}"#)
        #expect(!auto.stdout.contains("\u{1B}["))
        let always = try diff(#"{"a":1}"#, #"{"a":2,"b":3}"#, ["--color", "always"])
        #expect(always.stdout == "\u{1B}[33m~ /a: 1 → 2\u{1B}[0m\n\u{1B}[32m+ /b: 3\u{1B}[0m\n")
    }

    @Test("long values are shortened in the text format")
    func longValues() throws {
        let long = String(repeating: "x", count: 200)
        let result = try diff("{}", #"{"s":"\#(long)"}"#)
        #expect(result.stdout == "+ /s: \"" + String(repeating: "x", count: 78) + "…\n")
    }

    @Test("reads one side from standard input")
    func standardInput() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let b = try dir.file("b.json", contents: "[1,2]")
        let result = try CLIRunner.run(["diff", "-", b], stdin: Data("[1]".utf8))
        #expect(result.status == 1)
        #expect(result.stdout == "+ /1: 2\n")
        let both = try CLIRunner.run(["diff", "-", "-"], stdin: Data("[1]".utf8))
        #expect(both.status == 2)
        #expect(both.stderr == "only one document can be read from standard input ('-')\n")
    }

    @Test("invalid JSON exits 2 with FILE:LINE:COLUMN")
    func invalidJSON() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try dir.file("a.json", contents: "{}")
        let bad = try dir.file("bad.json", contents: "{\n  \"a\": 1,\n}")
        let result = try CLIRunner.run(["diff", a, bad])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("\(bad):3:1: "))
    }

    @Test("a missing file exits 2 naming it")
    func missingFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let a = try dir.file("a.json", contents: "{}")
        let missing = dir.url.appendingPathComponent("missing.json").path
        let result = try CLIRunner.run(["diff", missing, a])
        #expect(result.status == 2)
        #expect(result.stderr == "\(missing): no such file\n")
    }
}
