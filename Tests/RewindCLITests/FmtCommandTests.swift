import Foundation
import Testing
import RewindTestSupport

/// `rewind fmt`, run as a user would run it.
@Suite("rewind fmt", .ownThreads)
struct FmtCommandTests {
    static let input = #"{"b":[1,2.50,{}],"a":"é\n","c":{"z":null,"y":true}}"#

    func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try body(try directory.file("state.json", contents: contents))
    }

    @Test("prints pretty with two spaces by default")
    func pretty() throws {
        try withFile(Self.input) { path in
            let result = try CLIRunner.run(["fmt", path])
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout == """
            {
              "b": [
                1,
                2.50,
                {}
              ],
              "a": "é\\n",
              "c": {
                "z": null,
                "y": true
              }
            }

            """)
        }
    }

    @Test("--compact prints one line")
    func compact() throws {
        try withFile(Self.input) { path in
            let result = try CLIRunner.run(["fmt", "--compact", path])
            #expect(result.status == 0)
            #expect(result.stdout == Self.input + "\n")
        }
    }

    @Test("--sort-keys sorts at every level, pretty or compact")
    func sortKeys() throws {
        try withFile(Self.input) { path in
            let compact = try CLIRunner.run(["fmt", path, "--sort-keys", "--compact"])
            #expect(compact.status == 0)
            #expect(compact.stdout == #"{"a":"é\n","b":[1,2.50,{}],"c":{"y":true,"z":null}}"# + "\n")
            let pretty = try CLIRunner.run(["fmt", "--sort-keys", path])
            #expect(pretty.stdout.hasPrefix("{\n  \"a\": \"é\\n\",\n  \"b\": [\n"))
        }
    }

    @Test("'-' reads standard input")
    func standardInput() throws {
        let result = try CLIRunner.run(["fmt", "-"], stdin: Data(#"{"a":[1,2]}"#.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n")
        let compact = try CLIRunner.run(["fmt", "--compact", "-"], stdin: Data(" [ true , null ] ".utf8))
        #expect(compact.stdout == "[true,null]\n")
    }

    @Test("invalid input exits 1 with FILE:LINE:COLUMN: message and prints nothing")
    func invalidInput() throws {
        try withFile("{\n  \"a\": [1, 2,]\n}\n") { path in
            let result = try CLIRunner.run(["fmt", path])
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(result.stderr == "\(path):2:14: expected a JSON value\n")
        }
        let piped = try CLIRunner.run(["fmt", "-"], stdin: Data("[\"é\" x]".utf8))
        #expect(piped.status == 1)
        #expect(piped.stdout == "")
        #expect(piped.stderr == "<stdin>:1:6: expected ',' or ']' after an array element\n")
    }

    @Test("a missing file exits non-zero with one sentence")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.url.appendingPathComponent("nope.json").path
        let result = try CLIRunner.run(["fmt", path])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "\(path): no such file\n")

        let onDirectory = try CLIRunner.run(["fmt", directory.url.path])
        #expect(onDirectory.status != 0)
        #expect(onDirectory.stderr.split(separator: "\n").count == 1)
        #expect(onDirectory.stderr.contains("is a directory"))
    }
}
