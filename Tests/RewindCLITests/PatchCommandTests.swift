import Foundation
import Testing
import RewindTestSupport

@Suite("rewind patch", .ownThreads)
struct PatchCommandTests {
    func patch(_ document: String, _ patch: String, _ options: [String] = []) throws -> CLIRunner.Output {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        return try CLIRunner.run(["patch", try dir.file("doc.json", contents: document), try dir.file("patch.json", contents: patch)] + options)
    }

    @Test("prints the patched document, pretty")
    func applies() throws {
        let result = try patch(#"{"a":{"b":[1,2]}}"#, #"[{"op":"add","path":"/a/b/-","value":3},{"op":"add","path":"/c","value":true}]"#)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
        {
          "a": {
            "b": [
              1,
              2,
              3
            ]
          },
          "c": true
        }

        """)
    }

    @Test("--compact prints one line")
    func compact() throws {
        let result = try patch("[1]", #"[{"op":"replace","path":"/0","value":"x"}]"#, ["--compact"])
        #expect(result.status == 0)
        #expect(result.stdout == "[\"x\"]\n")
    }

    @Test("a patch that does not apply exits 1 naming the operation", arguments: [
        (#"[{"op":"test","path":"/a/b/0","value":1},{"op":"replace","path":"/a/x/y","value":0}]"#,
         "operation 1 (replace /a/x/y): /a/x does not exist"),
        (#"[{"op":"remove","path":"/a/b/5"}]"#,
         "operation 0 (remove /a/b/5): index 5 is out of bounds for the array at /a/b (2 elements)"),
        (#"[{"op":"test","path":"/a/b","value":[2,1]}]"#, "operation 0 (test /a/b): test failed: the value there is [1,2]"),
    ])
    func failing(patchText: String, message: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let doc = try dir.file("doc.json", contents: #"{"a":{"b":[1,2]}}"#)
        let p = try dir.file("patch.json", contents: patchText)
        let result = try CLIRunner.run(["patch", doc, p])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "\(p): \(message)\n")
    }

    @Test("a malformed patch exits 1 naming the bad operation")
    func malformed() throws {
        let result = try patch("{}", #"[{"op":"add","path":"/a","value":1},{"op":"add","path":"/b"}]"#)
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("patch.json: operation 1 (add /b): missing 'value' member\n"))
        let notArray = try patch("{}", #"{"op":"add"}"#)
        #expect(notArray.status == 1)
        #expect(notArray.stderr.hasSuffix("patch.json: a JSON patch must be an array of operations, found object\n"))
    }

    @Test("invalid JSON exits 2 with FILE:LINE:COLUMN")
    func invalidJSON() throws {
        let result = try patch("{}", "[{\"op\":]")
        #expect(result.status == 2)
        // The parser's wording belongs to the parser; the place is ours to check.
        #expect(result.stderr.contains("patch.json:1:8: "))
        let missing = try CLIRunner.run(["patch", "/nonexistent/doc.json", "/nonexistent/p.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "/nonexistent/doc.json: no such file\n")
    }

    @Test("reads the document from standard input")
    func standardInput() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let p = try dir.file("p.json", contents: #"[{"op":"copy","from":"/0","path":"/-"}]"#)
        let result = try CLIRunner.run(["patch", "-", p, "--compact"], stdin: Data("[7]".utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "[7,7]\n")
    }
}
