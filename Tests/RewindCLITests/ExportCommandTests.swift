import Foundation
import RewindLog
import Testing
import RewindTestSupport

/// `rewind export`, run as a user would run it.
@Suite("rewind export", .ownThreads)
struct ExportCommandTests {
    func withLog(_ body: (TemporaryDirectory, String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try body(directory, directory.url.appendingPathComponent("log.db").path)
    }

    @Test("a recorded session: seq 0 without an action, then one line per action, with its time")
    func recordedSession() throws {
        try withLog { _, db in
            try LogFixture.recordSession(path: db, uuid: "0f1e2d3c-aaaa-4000-8000-000000000001",
                                         startedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
            let result = try CLIRunner.run(["export", "0f1e", "--db", db])
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout == """
            {"state":{"count":0},"at":1700000000.5}
            {"action":{"type":"increment"},"state":{"count":1},"at":1700000001.5}
            {"action":{"type":"increment"},"state":{"count":2},"at":1700000002.5}

            """)
        }
    }

    @Test("-o writes the file and nothing else; the default format is the one imported from")
    func outputFile() throws {
        try withLog { directory, db in
            let input = try directory.file("in.json", contents: ImportCommandTests.lifted)
            #expect(try CLIRunner.run(["import", input, "--db", db]).status == 0)
            let out = directory.url.appendingPathComponent("out.json").path
            let result = try CLIRunner.run(["export", "latest", "-o", out, "--db", db])
            #expect(result.status == 0)
            #expect(result.stdout == "")
            let written = try String(contentsOfFile: out, encoding: .utf8)
            #expect(written.hasPrefix(#"{"actionsById":{"0":{"type":"PERFORM_ACTION","action":{"type":"@@INIT"},"timestamp":1700000000000}"#))
            #expect(written.hasSuffix(#""stagedActionIds":[0,1,2]}"# + "\n"))
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            #expect(names.filter { !$0.hasPrefix("log.db") } == ["in.json", "out.json"])
        }
    }

    @Test("an unknown session exits 2 with one sentence, and -o creates no file")
    func unknownSession() throws {
        try withLog { directory, db in
            try LogFixture.recordSession(path: db, uuid: "only", startedAt: Date())
            let out = directory.url.appendingPathComponent("out.jsonl").path
            let result = try CLIRunner.run(["export", "42", "-o", out, "--db", db])
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr == "No session named '42' in \(db): no id or uuid matches it.\n")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("without a log, export exits 2 and says so")
    func noLog() throws {
        try withLog { _, db in
            let result = try CLIRunner.run(["export", "latest", "--db", db])
            #expect(result.status == 2)
            #expect(result.stderr == "no log at \(db): record or import a session first, or name one with --db\n")
        }
    }
}
