import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindTestSupport
import Testing

/// The command line on the team store: every command that takes `--db` with a postgres:// URL,
/// and one sentence (exit 2, no password) when the database cannot be used.
@Suite("The command line on a team database (--db postgres://…)", .ownThreads)
struct TeamStoreCommandTests {
    /// A database holding the parity recordings (sessions 1, 2 and 3), imported by `rewind import`.
    static func importedDatabase(_ prefix: String, in directory: TemporaryDirectory) throws -> String {
        let database = try TeamStore.database(prefix)
        for recording in try ParityRecordings.write(into: directory) {
            let imported = try TeamStore.run(["import", recording], db: database)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        return database
    }

    @Test("import (also from standard input), sessions, test and patch work on a database; nothing names its password")
    func readAndWriteCommands() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.importedDatabase("cli_commands", in: directory)
        defer { TeamStore.drop(database) }
        let shown = TeamStore.shown(database)

        let piped = try TeamStore.run(["import", "-", "--app", "Piped", "--json"], db: database,
                                      stdin: Data((ParityRecordings.odd().joined(separator: "\n") + "\n").utf8))
        #expect(piped.status == 0)
        #expect(try JSONValue(parsing: piped.stdout)["id"] == 4)
        let list = try TeamStore.run(["sessions", "--app", "Piped"], db: database)
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == 2)
        let page = try TeamStore.run(["sessions", "--limit", "2", "--json"], db: database)
        #expect(try jsonLines(page.stdout).map { $0["id"] ?? $0["next"] } == [4, 3, 3])
        let after = try TeamStore.run(["sessions", "--limit", "2", "--after", "3", "--json"], db: database)
        #expect(try jsonLines(after.stdout).map { $0["id"] ?? $0["next"] } == [2, 1, JSONValue.null])

        let patchFile = try directory.file("patch.json", contents: #"[{"op":"replace","path":"/total","value":-1}]"#)
        let patched = try TeamStore.run(["patch", "1@3", patchFile, "--compact"], db: database)
        #expect(patched.status == 0, "\(patched.stderr)")
        #expect(try JSONValue(parsing: patched.stdout)["total"] == -1)

        let output = directory.path("tests")
        let test = try TeamStore.run(["test", "1", "--reducer", "shopReducer", "--name", "ShopReplay", "--output", output], db: database)
        #expect(test.status == 0, "\(test.stderr)")
        let source = try String(contentsOfFile: output + "/ShopReplay.swift", encoding: .utf8)
        #expect(source.contains("of \(shown)"))
        let fixture = try Data(contentsOf: URL(fileURLWithPath: output + "/ShopReplay.jsonl"))
        #expect(fixture.count > 1_000)

        for result in [piped, list, page, patched, test] {
            #expect(!(result.stdout + result.stderr).contains("rewind:rewind@"), "no password")
        }
    }

    @Test("prune removes sessions from a database by id and by age, --dry-run removes nothing")
    func prune() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.importedDatabase("cli_prune", in: directory)
        defer { TeamStore.drop(database) }
        let dry = try TeamStore.run(["prune", "2", "--dry-run"], db: database)
        #expect(dry.status == 0)
        #expect(dry.stdout.hasSuffix("Would remove 1 session, 301 events; nothing was removed (--dry-run).\n"))
        let named = try TeamStore.run(["prune", "2"], db: database)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.hasSuffix("Removed 1 session, 301 events.\n"))
        #expect(try PostgresLogStore(url: database).openReader().sessions().map(\.id) == [1, 3])
        // (Not "2" again: digits that name no id may start a uuid, and the uuids are random.)
        let missing = try TeamStore.run(["prune", "nope"], db: database)
        #expect(missing.status == 2)
        #expect(missing.stderr == "No session named 'nope' in \(TeamStore.shown(database)): no id or uuid matches it.\n")
        // The recordings are from 2023: every session left is older than 30 days.
        let old = try TeamStore.run(["prune", "--older-than", "30d", "--json"], db: database)
        #expect(old.status == 0)
        #expect(try JSONValue(parsing: old.stdout)["removed"]?.arrayValue?.map { $0["id"] } == [1, 3])
        #expect(try PostgresLogStore(url: database).openReader().sessions().isEmpty)
        #expect(try TeamStore.run(["prune", "--older-than", "30d"], db: database).stdout == "Nothing to remove: no session has been inactive for more than 30d.\n")
    }

    @Test("stats on a database shows what Rewind's tables take and the database's size, not a file and its WAL")
    func stats() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.importedDatabase("cli_stats", in: directory)
        defer { TeamStore.drop(database) }
        let text = try TeamStore.run(["stats"], db: database)
        #expect(text.status == 0, "\(text.stderr)")
        let rows = text.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first == "log              \(TeamStore.shown(database))")
        #expect(rows.contains { $0.hasPrefix("stored  ") && $0.hasSuffix(" (Rewind's tables and their indexes)") })
        #expect(rows.contains { $0.hasPrefix("database  ") && $0.hasSuffix(" (the whole database, PostgreSQL's catalogs included)") })
        #expect(!text.stdout.contains("write-ahead"))
        #expect(rows.contains("events           706"))

        let json = try JSONValue(parsing: try TeamStore.run(["stats", "--json"], db: database).stdout)
        #expect(json["fileBytes"] == nil && json["walBytes"] == nil)
        let stored = try #require(json["storedBytes"]?.numberValue?.int64Value)
        let whole = try #require(json["databaseBytes"]?.numberValue?.int64Value)
        #expect(stored > 0 && stored < whole)
        #expect(json["sessions"]?.arrayValue?.count == 3)

        let one = try TeamStore.run(["stats", "2"], db: database)
        #expect(one.stdout.contains("(its share of Rewind's tables, by the JSON text it holds)"))
        // A file's stats are unchanged.
        let file = directory.path("file.db")
        #expect(try TeamStore.run(["import", directory.path("odd.jsonl")], db: file).status == 0)
        let fileStats = try TeamStore.run(["stats", "--json"], db: file)
        let fileJSON = try JSONValue(parsing: fileStats.stdout)
        #expect(fileJSON["fileBytes"] != nil && fileJSON["walBytes"] != nil && fileJSON["databaseBytes"] == nil)
        #expect(try TeamStore.run(["stats"], db: file).stdout.contains("+ write-ahead log"))
    }

    /// Every command that takes --db, as it would be run on a log with sessions 1 and 2.
    static func everyCommand(_ directory: TemporaryDirectory) throws -> [[String]] {
        let recording = try directory.file("one.jsonl", contents: #"{"state":{"n":0}}"# + "\n")
        return [
            ["sessions"], ["log", "1"], ["state", "1@0"], ["diff", "1@0", "1@1"], ["blame", "1", "/n"], ["find", "1", "/n", "--exists"],
            ["verify"], ["stats"], ["export", "1"], ["replay", "1"], ["patch", "1@0", recording],
            ["test", "1", "--reducer", "r", "--output", directory.path("out")], ["import", recording], ["prune", "1"],
            ["prune", "--older-than", "30d"], ["push", "--to", directory.path("copy.db")],
        ]
    }

    @Test("a wrong password, an unreachable database or a malformed URL: one sentence, exit 2, no password, for every command")
    func unusableURLs() throws {
        let directory = try TemporaryDirectory()
        let cluster = try PostgresTestCluster.shared()
        let closed = try ReservedPort()
        let urls: [(url: String, shown: String)] = [
            ("postgres://rewind:topsecret@127.0.0.1:\(cluster.port)/postgres", "postgres://rewind@127.0.0.1:\(cluster.port)/postgres"),
            ("postgres://rewind:topsecret@127.0.0.1:\(closed.port)/rewind", "postgres://rewind@127.0.0.1:\(closed.port)/rewind"),
            ("postgres://rewind:topsecret@127.0.0.1:\(cluster.port)", "postgres://rewind@127.0.0.1:\(cluster.port)"),
            ("postgresql://rewind@127.0.0.1:\(cluster.port)/postgres?password=topsecret", "postgresql://rewind@127.0.0.1:\(cluster.port)/postgres?password=…"),
        ]
        for arguments in try Self.everyCommand(directory) {
            for (url, shown) in urls {
                let result = try TeamStore.run(arguments, db: url)
                #expect(result.status == 2, "\(arguments) on \(shown): \(result.stderr)")
                #expect(TeamStore.isOneSentence(result.stderr), "\(arguments) on \(shown): \(result.stderr)")
                #expect(result.stderr.contains(shown), "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("topsecret") && !result.stdout.contains("topsecret"), "\(arguments)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("copy.db")), "nothing was copied")
    }

    @Test("a database without Rewind's tables is one sentence for the read commands; import creates them")
    func databaseWithoutTables() throws {
        let directory = try TemporaryDirectory()
        let database = try TeamStore.database("cli_bare")
        defer { TeamStore.drop(database) }
        let shown = TeamStore.shown(database)
        for arguments in [["sessions"], ["log", "1"], ["verify"], ["stats"], ["prune", "1"]] {
            let result = try TeamStore.run(arguments, db: database)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == "\(shown) is not a Rewind log: the database has no Rewind tables yet (rewind serve --db or rewind import --db creates them).\n",
                    "\(arguments)")
        }
        let recording = try directory.file("one.jsonl", contents: #"{"state":{"n":0}}"# + "\n")
        #expect(try TeamStore.run(["import", recording], db: database).status == 0)
        #expect(try TeamStore.run(["verify"], db: database).stdout.hasSuffix(": ok, 1 events, 1 keyframes\n"))
    }

    @Test("what only makes sense for a file says so in one sentence")
    func fileOnlyCommands() throws {
        let database = try TeamStore.database("cli_fileonly")
        defer { TeamStore.drop(database) }
        let shown = TeamStore.shown(database)
        let demo = try CLIRunner.run(["demo", "--db", database, "--duration", "1"], environment: ["REWIND_DB": ""])
        #expect(demo.status == 2)
        #expect(demo.stderr == "--db: rewind demo records into a log file, not a database; to fill a team store, run rewind serve --db \(shown) and rewind demo --server\n")
        #expect(try Self.tables(database) == "0", "the demo created nothing")
    }

    static func tables(_ url: String) throws -> String {
        try PostgresTestCluster.shared().psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: url)
    }
}
