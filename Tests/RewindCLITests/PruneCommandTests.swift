import Foundation
import RewindLog
import Testing
import RewindTestSupport

/// `rewind prune`, run as a user would run it.
@Suite("rewind prune", .ownThreads)
struct PruneCommandTests {
    static let day: TimeInterval = 86_400

    /// A log with three sessions, started 40, 10 and 0 days ago: ids 1, 2, 3.
    func withSessions(_ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let db = directory.url.appendingPathComponent("log.db").path
        let now = Date()
        try LogFixture.recordSession(path: db, uuid: "aaaa0000-0000-4000-8000-000000000040", startedAt: now.addingTimeInterval(-40 * Self.day))
        try LogFixture.recordSession(path: db, uuid: "bbbb0000-0000-4000-8000-000000000010", startedAt: now.addingTimeInterval(-10 * Self.day))
        try LogFixture.recordSession(path: db, uuid: "cccc0000-0000-4000-8000-000000000000", startedAt: now.addingTimeInterval(-60))
        try body(db)
    }

    /// The ids left, and whether each still exports all its states.
    func remaining(_ db: String) throws -> [Int64] {
        let reader = try LogReader(path: db)
        let sessions = try reader.sessions()
        for session in sessions {
            let export = try CLIRunner.run(["export", String(session.id), "--db", db])
            #expect(export.status == 0)
            #expect(export.stdout.split(separator: "\n").count == 3)
        }
        return sessions.map(\.id)
    }

    @Test("named sessions go; the others stay whole and readable")
    func bySession() throws {
        try withSessions { db in
            let result = try CLIRunner.run(["prune", "2", "--db", db])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Removed session 2 (uuid bbbb0000-0000-4000-8000-000000000010, app Counter, 3 events, last active "))
            #expect(result.stdout.hasSuffix("Removed 1 session, 3 events.\n"))
            #expect(try remaining(db) == [1, 3])
            // A uuid prefix names a session too.
            #expect(try CLIRunner.run(["prune", "cccc", "--db", db]).status == 0)
            #expect(try remaining(db) == [1])
        }
    }

    @Test("--older-than goes by last activity; --dry-run lists and removes nothing")
    func byAge() throws {
        try withSessions { db in
            let dry = try CLIRunner.run(["prune", "--older-than", "30", "--dry-run", "--db", db])
            #expect(dry.status == 0)
            #expect(dry.stdout.hasPrefix("Would remove session 1 (uuid aaaa0000-0000-4000-8000-000000000040"))
            #expect(dry.stdout.hasSuffix("Would remove 1 session, 3 events; nothing was removed (--dry-run).\n"))
            #expect(try remaining(db) == [1, 2, 3])

            let result = try CLIRunner.run(["prune", "--older-than", "30", "--db", db])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Removed session 1 "))
            #expect(try remaining(db) == [2, 3])

            let json = try CLIRunner.run(["prune", "--older-than", "5", "--json", "--db", db])
            #expect(json.stdout.hasPrefix(#"{"dryRun":false,"removed":[{"id":2,"uuid":"bbbb0000-0000-4000-8000-000000000010","app":"Counter","events":3,"lastActivity":""#))
            #expect(try remaining(db) == [3])

            let none = try CLIRunner.run(["prune", "--older-than", "1", "--db", db])
            #expect(none.stdout == "Nothing to remove: no session has been inactive for more than 1 day.\n")
            #expect(try remaining(db) == [3])
        }
    }

    @Test("--older-than takes a span or a time as well as days: 30d, 720h, 4w and a date agree with 30")
    func byAgeAsSpanOrTime() throws {
        for (age, kept) in [("30d", [2, 3]), ("720h", [2, 3]), ("4w", [2, 3]), ("5d", [3])] as [(String, [Int64])] {
            try withSessions { db in
                let dry = try CLIRunner.run(["prune", "--older-than", age, "--dry-run", "--db", db])
                #expect(dry.status == 0, "\(age): \(dry.stderr)")
                #expect(try remaining(db) == [1, 2, 3], "\(age): a dry run removed something")
                let result = try CLIRunner.run(["prune", "--older-than", age, "--db", db])
                #expect(result.status == 0, "\(age): \(result.stderr)")
                #expect(try remaining(db) == kept, "\(age)")
            }
        }
        try withSessions { db in
            // A time: what has been inactive since before it; a day 30 days back keeps what 30 keeps.
            let cutoff = Date().addingTimeInterval(-30 * 86_400).formatted(.iso8601)
            let result = try CLIRunner.run(["prune", "--older-than", cutoff, "--db", db])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try remaining(db) == [2, 3])
            let none = try CLIRunner.run(["prune", "--older-than", "20d", "--db", db])
            #expect(none.stdout == "Nothing to remove: no session has been inactive for more than 20d.\n")
        }
    }

    @Test("refuses without arguments, with both kinds, or with a bad number of days; removes nothing", arguments: [
        ([], "rewind prune needs the sessions to remove or --older-than DAYS; nothing was removed."),
        (["1", "--older-than", "3"], "give rewind prune either sessions or --older-than, not both; nothing was removed."),
        (["--older-than=-1"], "--older-than takes a number of days, 0 or more; nothing was removed."),
        (["--older-than", "30 days"], "--older-than takes a number of days (30), a span (12h, 30d, 2w) or a time (2025-11-20, 2025-11-20T14:00:00Z); got '30 days'; nothing was removed."),
        (["--older-than", "2999-01-01"], "--older-than 2999-01-01 is in the future; nothing was removed."),
    ])
    func refuses(arguments: [String], message: String) throws {
        try withSessions { db in
            let result = try CLIRunner.run(["prune"] + arguments + ["--db", db])
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr == message + "\n")
            #expect(try remaining(db) == [1, 2, 3])
        }
    }

    @Test("an unknown session exits 2 with one sentence, even beside known ones, and removes nothing")
    func unknownSession() throws {
        try withSessions { db in
            let result = try CLIRunner.run(["prune", "1", "99", "--db", db])
            #expect(result.status == 2)
            #expect(result.stderr == "No session named '99' in \(db): no id or uuid matches it.\n")
            #expect(try remaining(db) == [1, 2, 3])
        }
    }
}
