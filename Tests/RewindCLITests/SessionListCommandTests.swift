import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindCLI
import RewindTestSupport

/// `rewind sessions` filtered by app, version, device, tag and time, and paged.
@Suite("rewind sessions: filters and pages", .ownThreads)
struct SessionListCommandTests {
    static let start = Date(timeIntervalSince1970: 1_763_000_000)

    /// A log of `count` sessions: apps, versions and devices cycle; every 5th is tagged
    /// "bug report"; session i started i hours after ``start``.
    static func makeLog(_ directory: TemporaryDirectory, count: Int) throws -> String {
        let path = directory.path("many.db")
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        for i in 0..<count {
            let meta: JSONValue = [
                "version": .string(["1.0", "2.0"][i % 2]), "device": .string(["iPhone15,2", "x86_64", "arm64"][i % 3]),
                "os": "iOS 17.4", "tags": i % 5 == 0 ? ["bug report", "qa"] : [],
            ]
            _ = try writer.openSession(uuid: "s-\(i)", app: ["Todos", "Shop"][i % 2 == 0 && i % 4 == 0 ? 1 : 0],
                                       startedAt: start.addingTimeInterval(Double(i) * 3_600), meta: meta)
        }
        return path
    }

    static func run(_ arguments: [String], _ path: String) throws -> CLIRunner.Output {
        try CLIRunner.run(["sessions"] + arguments + ["--db", path], environment: ["TZ": "UTC", "NO_COLOR": "1"])
    }

    /// The ids of every page of `sessions --json --limit N` with `arguments`, following `next`.
    static func pagedIDs(_ arguments: [String], _ path: String, limit: Int) throws -> [Int64] {
        var ids: [Int64] = []
        var after: [String] = []
        for _ in 0..<1_000 {
            let output = try run(arguments + ["--json", "--limit", String(limit)] + after, path)
            #expect(output.status == 0, "\(output.stderr)")
            let lines = try jsonLines(output.stdout)
            let last = try #require(lines.last)
            #expect(lines.count - 1 <= limit)
            ids += lines.dropLast().compactMap { $0["id"]?.numberValue?.int64Value }
            guard let next = last["next"]?.numberValue?.int64Value else {
                #expect(last == ["next": .null])
                return ids
            }
            after = ["--after", String(next)]
        }
        Issue.record("more than 1,000 pages")
        return ids
    }

    @Test("each filter narrows the list to the sessions it names; paging visits them newest first, once")
    func filters() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeLog(directory, count: 2_000)
        let all = try LogReader(path: path).sessions()
        let cases: [([String], (SessionInfo) -> Bool)] = [
            (["--app", "Shop"], { $0.app == "Shop" }),
            (["--app-version", "2.0"], { $0.appVersion == "2.0" }),
            (["--device", "arm64"], { $0.device == "arm64" }),
            (["--tag", "bug report"], { $0.tags.contains("bug report") }),
            (["--since", "2025-12-30T00:00:00Z"], { $0.startedAt >= Date(timeIntervalSince1970: 1_767_052_800) }),
            (["--until", "2025-11-14"], { $0.startedAt < Date(timeIntervalSince1970: 1_763_078_400) }),
            (["--app", "Todos", "--device", "x86_64", "--tag", "qa", "--since", "2025-11-20", "--until", "2025-12-20T12:30:00+01:00"],
             { $0.app == "Todos" && $0.device == "x86_64" && $0.tags.contains("qa")
                 && $0.startedAt >= Date(timeIntervalSince1970: 1_763_596_800) && $0.startedAt < Date(timeIntervalSince1970: 1_766_230_200) }),
        ]
        for (arguments, keeps) in cases {
            let expected = all.filter(keeps).map(\.id)
            #expect(!expected.isEmpty && expected.count < all.count, "\(arguments): the fixture should narrow")
            let paged = try Self.pagedIDs(arguments, path, limit: 150)
            #expect(paged == Array(expected.reversed()), "\(arguments): \(paged.count) paged, \(expected.count) expected")
            // Without --limit: every match at once, oldest first.
            let whole = try jsonLines(try Self.run(arguments + ["--json"], path).stdout).compactMap { $0["id"]?.numberValue?.int64Value }
            #expect(whole == expected, "\(arguments): \(whole.count) listed, \(expected.count) expected")
        }
    }

    @Test("the table shows version, device and tags; a page says how to get the next one")
    func table() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeLog(directory, count: 12)
        let page = try Self.run(["--tag", "qa", "--limit", "2"], path)
        #expect(page.status == 0)
        #expect(page.stdout == """
        ID  UUID  RUN  APP    VERSION  DEVICE  STARTED                  ENDED        EVENTS  KEYFRAMES  TAGS
        11  s-10  -    Todos  1.0      x86_64  2025-11-13 12:13:20.000  interrupted       0          0  bug report, qa
         6  s-5   -    Todos  2.0      arm64   2025-11-13 07:13:20.000  interrupted       0          0  bug report, qa

        """)
        #expect(page.stderr == "more: add --after 6 for the next page\n")
        let last = try Self.run(["--tag", "qa", "--limit", "2", "--after", "6"], path)
        #expect(last.stdout.split(separator: "\n").count == 2)
        #expect(last.stderr == "")
        let json = try jsonLines(try Self.run(["--tag", "qa", "--json", "--limit", "1"], path).stdout)
        #expect(json.count == 2)
        #expect(json[0]["appVersion"] == "1.0" && json[0]["device"] == "x86_64" && json[0]["os"] == "iOS 17.4")
        #expect(json[0]["tags"] == ["bug report", "qa"])
        #expect(json[1] == ["next": 11])
        let none = try Self.run(["--app", "Nope"], path)
        #expect(none.status == 0 && none.stdout == "")
        #expect(none.stderr == "no session in \(path) matches\n")
    }

    @Test("a branch listed on a page without its original still names it by its id")
    func branchOnAPage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("branch.db")
        let writer = try LogWriter(path: path)
        let original = try writer.openSession(uuid: "orig-uuid", app: "Todos", startedAt: Self.start)
        _ = try writer.openSession(uuid: "other", app: "Shop", startedAt: Self.start)
        _ = try writer.openSession(uuid: "branch-uuid", app: "Todos", startedAt: Self.start, meta: ["branch": ["of": "orig-uuid", "skipped": [3]]],
                                   replayOf: "orig-uuid")
        writer.close()
        let lines = try jsonLines(try Self.run(["--json", "--limit", "1"], path).stdout)
        #expect(lines.first?["branch"]?["ofId"]?.numberValue?.int64Value == original)
        #expect(lines.first?["note"] == .string("branch of \(original): left out 3"))
        let filtered = try Self.run(["--app", "Todos", "--after", "2"], path)
        #expect(filtered.stdout.contains("Todos"))
        #expect(!filtered.stdout.contains("Shop"))
    }

    @Test("a malformed filter is one sentence and exit 2, and lists nothing", arguments: [
        (["--since", "yesterday"], "--since takes an ISO 8601 time (2025-11-20T14:00:00Z), a date (2025-11-20, midnight UTC) or a span before now (90s, 15m, 2h, 30d, 2w); got 'yesterday'."),
        (["--until", "2025-13-40"], "--until takes an ISO 8601 time (2025-11-20T14:00:00Z), a date (2025-11-20, midnight UTC) or a span before now (90s, 15m, 2h, 30d, 2w); got '2025-13-40'."),
        (["--since", "1d", "--until", "2d"], "--since 1d is not before --until 2d; no session can have started between them."),
        (["--limit", "0"], "--limit takes a number of sessions from 1 to 1000; got 0."),
        (["--limit", "1001"], "--limit takes a number of sessions from 1 to 1000; got 1001."),
        (["--after", "0"], "--after takes the cursor a page gave (a session id, 1 or more); got 0."),
        (["--tag", ""], "--tag takes a non-empty value."),
        (["--app", ""], "--app takes a non-empty value."),
        (["--tag", String(repeating: "x", count: 65)], "--tag: a tag has at most 64 bytes of UTF-8; this one has 65, so no session has it."),
        (["--since", "99999999d"], "--since 99999999d reaches back more than a century; give an ISO 8601 time (2025-11-20T14:00:00Z), a date (2025-11-20, midnight UTC) or a span before now (90s, 15m, 2h, 30d, 2w)."),
    ])
    func malformed(arguments: [String], sentence: String) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeLog(directory, count: 3)
        let output = try Self.run(arguments, path)
        #expect(output.status == 2)
        #expect(output.stdout == "")
        #expect(output.stderr == "error: \(sentence)\n" || output.stderr == sentence + "\n", "\(output.stderr)")
    }

    @Test("times: ISO 8601 with a zone or fractions, a date at midnight UTC, spans before now")
    func times() throws {
        let now = Date(timeIntervalSince1970: 1_763_700_000)
        #expect(try TimeArgument.parse("2025-11-20T14:00:00Z", option: "--since", now: now) == Date(timeIntervalSince1970: 1_763_647_200))
        #expect(try TimeArgument.parse("2025-11-20T15:00:00+01:00", option: "--since", now: now) == Date(timeIntervalSince1970: 1_763_647_200))
        #expect(try TimeArgument.parse("2025-11-20T14:00:00.250Z", option: "--since", now: now) == Date(timeIntervalSince1970: 1_763_647_200.25))
        #expect(try TimeArgument.parse("2025-11-20", option: "--since", now: now) == Date(timeIntervalSince1970: 1_763_596_800))
        #expect(try TimeArgument.parse("90s", option: "--since", now: now) == now.addingTimeInterval(-90))
        #expect(try TimeArgument.parse("15m", option: "--since", now: now) == now.addingTimeInterval(-900))
        #expect(try TimeArgument.parse("2h", option: "--since", now: now) == now.addingTimeInterval(-7_200))
        #expect(try TimeArgument.parse("1.5d", option: "--since", now: now) == now.addingTimeInterval(-129_600))
        #expect(try TimeArgument.parse("2w", option: "--since", now: now) == now.addingTimeInterval(-1_209_600))
        for bad in ["", "h", "-2h", "2x", "2 h", "2025-11-20T14:00:00", "1e3d", "today", "2025-11-20Tgarbage"] {
            #expect(throws: CLIError.self, "\(bad)") { try TimeArgument.parse(bad, option: "--since", now: now) }
        }
    }

    @Test("a session that never ended is interrupted once no writer holds the log, live while one does; ended ones are ended (issue 37)")
    func interruptedSessions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("states.db")
        do {
            let writer = try LogWriter(path: path)
            defer { writer.close() }
            let ended = try writer.openSession(uuid: "ended", app: "Todos", startedAt: Self.start)
            try writer.endSession(id: ended, at: Self.start.addingTimeInterval(60))
            _ = try writer.openSession(uuid: "gone", app: "Todos", startedAt: Self.start.addingTimeInterval(120))
            try writer.commit()
        }
        func states() throws -> [String: String] {
            let output = try Self.run(["--json"], path)
            #expect(output.status == 0, "\(output.stderr)")
            var found: [String: String] = [:]
            for line in try jsonLines(output.stdout) {
                found[line["uuid"]?.string ?? "?"] = line["state"]?.string
                #expect(line["live"] == .bool(line["state"] == "live"), "\(line)")
            }
            return found
        }
        #expect(try states() == ["ended": "ended", "gone": "interrupted"])
        let table = try Self.run([], path)
        #expect(table.stdout.contains("interrupted"), "\(table.stdout)")
        // While a writer holds the file (a server, a recording app), this command cannot tell.
        let holder = try LogWriter(path: path)
        #expect(try states() == ["ended": "ended", "gone": "live"])
        holder.close()
        #expect(try states() == ["ended": "ended", "gone": "interrupted"])
    }
}
