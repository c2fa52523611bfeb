#if os(Linux)
import Foundation
import Testing
import RewindTestSupport

// Linux only, as the HTTP helper it shares with WrongTokenTests.

/// Issue 43: secrets off the command line. A token comes from a file only its owner may read, or
/// from the environment; one given as an argument (visible in `ps`) draws a warning, and so does
/// a database password in `--db`.
@Suite("Tokens from files and the environment, not the command line", .ownThreads)
struct SecretOptionsTests {
    static let token = "a-token-from-a-file-0123456789ab"

    @Test("a token file that others may read, is empty, holds two lines or is missing is one sentence at start (exit 2); --token with --token-file too")
    func refusedFiles() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let open = try folder.file("open", contents: Self.token + "\n")
        chmod(open, 0o644)
        let empty = try folder.file("empty", contents: "\n")
        chmod(empty, 0o600)
        let twoLines = try folder.file("two", contents: "one\ntwo\n")
        chmod(twoLines, 0o600)
        let cases: [([String], String)] = [
            (["--token-file", open], "--token-file \(open) can be read by other users of this machine (mode 644); make it yours alone: chmod 600 \(open)"),
            (["--app-token-file", empty], "--app-token-file \(empty) is empty: it should hold one token"),
            (["--inspect-token-file", twoLines], "--inspect-token-file \(twoLines) holds more than one line: it should hold one token"),
            (["--token-file", folder.path("missing")], "--token-file \(folder.path("missing")): No such file or directory"),
            (["--token", Self.token, "--token-file", open], "give --token or --token-file, not both"),
        ]
        for (arguments, sentence) in cases {
            let run = try CLIRunner.run(["serve", "--port", "0", "--db", folder.path("x.db")] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stdout) \(run.stderr)")
            #expect(run.stderr == sentence + "\n", "\(arguments): \(run.stderr)")
        }
    }

    @Test("a token from a file its owner alone may read opens the server, with no warning; one on the command line works and draws one warning line")
    func fileAndArgument() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let file = try folder.file("token", contents: Self.token + "\n")
        chmod(file, 0o600)
        let fromFile = try ServeProcess(["--port", "0", "--db", folder.path("a.db"), "--token-file", file])
        defer { fromFile.signal(SIGKILL); _ = fromFile.waitForExit() }
        let port = try #require(fromFile.port(), "\(fromFile.text)")
        #expect(!fromFile.text.contains("warning"), "\(fromFile.text)")
        #expect(WrongTokenTests.get("/?token=\(Self.token)", port: port, from: "127.0.0.1")?.status == 200)
        #expect(WrongTokenTests.get("/?token=not-the-token-at-all-0000000000", port: port, from: "127.0.0.1")?.status == 401)

        let fromArgument = try ServeProcess(["--port", "0", "--db", folder.path("b.db"), "--app-token", Self.token, "--inspect-token", Self.token + "-inspect"])
        defer { fromArgument.signal(SIGKILL); _ = fromArgument.waitForExit() }
        #expect(fromArgument.port() != nil, "\(fromArgument.text)")
        let warnings = fromArgument.text.split(separator: "\n").filter { $0.contains("can be read by every user of this machine") }
        #expect(warnings == [
            "rewind serve: warning: --app-token on the command line can be read by every user of this machine (ps); give it in REWIND_APP_TOKEN or --app-token-file instead",
            "rewind serve: warning: --inspect-token on the command line can be read by every user of this machine (ps); give it in REWIND_INSPECT_TOKEN or --inspect-token-file instead",
        ], "\(fromArgument.text)")
    }

    @Test("a database password in --db draws a warning once the server listens, which never shows the password; a start that fails is its one sentence alone")
    func databasePassword() throws {
        let url = try PostgresTestCluster.shared().createDatabase()
        let password = try #require(URLComponents(string: url)?.password)
        let serve = try ServeProcess(["--port", "0", "--db", url])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        #expect(serve.port() != nil, "\(serve.text)")
        let warnings = serve.text.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings == ["rewind serve: warning: --db holds the database's password, which the command line shows to every user of this machine (ps); give it in PGPASSWORD or ~/.pgpass, or the whole URL in REWIND_DB"],
                "\(serve.text)")
        #expect(!serve.text.contains(":" + password + "@"), "\(serve.text)")
        // Refused at start: the sentence, and no warning with it.
        let refused = try CLIRunner.run(["serve", "--port", "0", "--db", "postgres://rewind:hunter2secret@127.0.0.1:1/rewind", "--app-token", "x"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1 && !refused.stderr.contains("warning") && !refused.stderr.contains("hunter2secret"),
                "\(refused.stderr)")
    }
}
#endif
