import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

/// Schema 6: the session list filtered by app, version, device, tag and start time, and paged
/// newest first, through indexes.
@Suite("Log file: session metadata, filters and pages", .ownThreads)
struct SessionListTests {
    static let apps = ["Todos", "Shop", "Maps"]
    static let versions = ["1.0", "1.1", "2.0", "2.1"]
    static let devices = ["iPhone15,2", "iPad13,4", "x86_64", "arm64", "iPhone16,1"]
    static let start = Date(timeIntervalSince1970: 1_763_000_000)

    /// Session `i`'s meta: its app, version and device cycle at different rates, so that every
    /// combination occurs; every 7th carries "bug report", every 3rd "beta".
    static func meta(_ i: Int) -> (app: String, meta: JSONValue) {
        var tags: [JSONValue] = []
        if i % 7 == 0 { tags.append("bug report") }
        if i % 3 == 0 { tags.append("beta") }
        let meta: JSONValue = [
            "version": .string(versions[i % versions.count]), "device": .string(devices[i % devices.count]),
            "os": "iOS 17.4", "tags": .array(tags),
        ]
        return (apps[i % apps.count], meta)
    }

    /// A log of `count` sessions, session `i` started `i` minutes after ``start``.
    static func makeLog(_ directory: TemporaryDirectory, count: Int) throws -> String {
        let path = directory.path("many.db")
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        for i in 0..<count {
            let (app, meta) = Self.meta(i)
            _ = try writer.openSession(uuid: "session-\(i)", app: app, startedAt: start.addingTimeInterval(Double(i) * 60), meta: meta)
        }
        return path
    }

    /// The first place two id lists differ, or `nil` when they are the same (never a whole
    /// array in a failure message).
    static func firstDifference(_ got: [Int64], _ expected: [Int64]) -> String? {
        if got == expected { return nil }
        let index = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, expected.count)
        return "\(got.count) ids against \(expected.count); first difference at \(index): \(index < got.count ? String(got[index]) : "none") against \(index < expected.count ? String(expected[index]) : "none")"
    }

    /// Every page of `filter`, followed by `next` from the newest.
    static func allPages(_ reader: LogReader, _ filter: SessionFilter, limit: Int) throws -> (ids: [Int64], pages: Int) {
        var ids: [Int64] = []
        var cursor: Int64?
        var pages = 0
        repeat {
            let page = try reader.sessions(matching: filter, after: cursor, limit: limit)
            #expect(page.sessions.count <= limit)
            ids += page.sessions.map(\.id)
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 10_000
        return (ids, pages)
    }

    @Test("each filter keeps exactly the sessions it names, across pages, on a log of 3,000 sessions")
    func filtersNarrow() throws {
        let directory = try TemporaryDirectory()
        let count = 3_000
        let path = try Self.makeLog(directory, count: count)
        let reader = try LogReader(path: path)
        let all = try reader.sessions()
        #expect(all.count == count)
        let minute = { (i: Int) in Self.start.addingTimeInterval(Double(i) * 60) }
        let cases: [(String, SessionFilter, (SessionInfo) -> Bool)] = [
            ("app", SessionFilter(app: "Shop"), { $0.app == "Shop" }),
            ("version", SessionFilter(appVersion: "2.0"), { $0.appVersion == "2.0" }),
            ("device", SessionFilter(device: "iPad13,4"), { $0.device == "iPad13,4" }),
            ("tag", SessionFilter(tag: "bug report"), { $0.tags.contains("bug report") }),
            ("since", SessionFilter(since: minute(2_500)), { $0.startedAt >= minute(2_500) }),
            ("until", SessionFilter(until: minute(40)), { $0.startedAt < minute(40) }),
            ("all together", SessionFilter(app: "Todos", appVersion: "1.1", device: "arm64", tag: "beta", since: minute(100), until: minute(2_900)),
             { $0.app == "Todos" && $0.appVersion == "1.1" && $0.device == "arm64" && $0.tags.contains("beta")
                 && $0.startedAt >= minute(100) && $0.startedAt < minute(2_900) }),
            ("nothing matches", SessionFilter(app: "todos"), { _ in false }),
        ]
        for (name, filter, keeps) in cases {
            let expected = all.filter(keeps).map(\.id)
            #expect(name == "nothing matches" || !expected.isEmpty, "\(name): the fixture should have matches")
            #expect(expected.count < count, "\(name): the filter should narrow")
            let (paged, pages) = try Self.allPages(reader, filter, limit: 97)
            #expect(Self.firstDifference(paged, expected.reversed()) == nil, "\(name), paged newest first")
            #expect(pages == max(1, (expected.count + 96) / 97), "\(name): pages")
            let whole = try reader.sessions(matching: filter).map(\.id)
            #expect(Self.firstDifference(whole, expected) == nil, "\(name), unpaged oldest first")
        }
        // The same answers from a file read as schema 5 would be (no columns, no tag table):
        // the conditions then read meta itself.
        reader.indexesSessionMeta = false
        for (name, filter, keeps) in cases {
            let (paged, _) = try Self.allPages(reader, filter, limit: 500)
            #expect(Self.firstDifference(paged, all.filter(keeps).map(\.id).reversed()) == nil, "\(name), from meta")
        }
    }

    @Test("a page's sessions carry their counts; the last page says so; limits are clamped")
    func pageContents() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("small.db")
        let writer = try LogWriter(path: path)
        for i in 0..<5 { _ = try writer.openSession(uuid: "s\(i)", app: "A", startedAt: Self.start, meta: ["tags": ["t"]]) }
        writer.append(Fixture.events(session: 3, seqs: 0..<4))
        try writer.flush()
        writer.close()
        let reader = try LogReader(path: path)
        let first = try reader.sessions(matching: SessionFilter(), limit: 2)
        #expect(first.sessions.map(\.id) == [5, 4])
        #expect(first.next == 4)
        let second = try reader.sessions(matching: SessionFilter(), after: 4, limit: 2)
        #expect(second.sessions.map(\.id) == [3, 2])
        #expect(second.sessions[0].eventCount == 4 && second.sessions[0].keyframeCount == 1 && second.sessions[0].tags == ["t"])
        let last = try reader.sessions(matching: SessionFilter(), after: 2, limit: 2)
        #expect(last.sessions.map(\.id) == [1])
        #expect(last.next == nil)
        // Exactly a page's worth left: the page is full and still the last.
        #expect(try reader.sessions(matching: SessionFilter(), after: 3, limit: 2).next == nil)
        #expect(try reader.sessions(matching: SessionFilter(), limit: 0).sessions.count == 1)
        #expect(try reader.sessions(matching: SessionFilter(), limit: 1_000_000).sessions.count == 5)
        #expect(try reader.sessions(matching: SessionFilter(), after: 1, limit: 10) == SessionPage(sessions: [], next: nil))
    }

    @Test("paging visits every session once, in order, while new sessions are recorded")
    func pagingWhileWriting() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeLog(directory, count: 1_000)
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let reader = try LogReader(path: path)
        let filter = SessionFilter(tag: "beta")
        let before = try reader.sessions(matching: filter).map(\.id)
        var visited: [Int64] = []
        var cursor: Int64?
        var added = 0
        repeat {
            let page = try reader.sessions(matching: filter, after: cursor, limit: 25)
            visited += page.sessions.map(\.id)
            cursor = page.next
            // Between pages, more sessions arrive, half of them with the tag.
            for _ in 0..<3 {
                let (app, meta) = Self.meta(added * 3)
                _ = try writer.openSession(uuid: "late-\(added)", app: app, startedAt: Date(), meta: meta)
                added += 1
            }
        } while cursor != nil
        #expect(Set(visited).count == visited.count, "no session twice")
        #expect(visited == visited.sorted(by: >), "newest first")
        #expect(Self.firstDifference(visited, before.reversed()) == nil)
        #expect(try reader.sessions(matching: filter).count > before.count, "the new sessions are there, for the next first page")
    }

    @Test("a page is found through an index, never by reading events", arguments: [
        "none", "app", "version", "device", "tag", "time", "cursor",
    ])
    func queryPlan(filter name: String) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeLog(directory, count: 200)
        let reader = try LogReader(path: path)
        let filters: [String: SessionFilter] = [
            "none": SessionFilter(), "app": SessionFilter(app: "Shop"), "version": SessionFilter(appVersion: "1.0"),
            "device": SessionFilter(device: "x86_64"), "tag": SessionFilter(tag: "beta"),
            "time": SessionFilter(since: Self.start, until: Self.start.addingTimeInterval(3_600)), "cursor": SessionFilter(),
        ]
        let plan = try reader.sessionPagePlan(filters[name]!, after: name == "cursor" ? 100 : nil)
        let text = plan.joined(separator: "\n")
        // The per-session counts probe events by (session_id, seq); nothing scans it.
        #expect(!plan.contains { $0.hasPrefix("SCAN events") || $0.hasPrefix("SCAN keyframes") || $0.hasPrefix("SCAN e") }, "\(text)")
        let index: String
        switch name {
        case "none": index = "SCAN f" // the table in id order, stopping at the page's end
        case "app": index = "USING COVERING INDEX sessions_app"
        case "version": index = "USING INDEX sessions_app_version"
        case "device": index = "USING INDEX sessions_device"
        case "tag": index = "USING COVERING INDEX session_tags_tag"
        case "time": index = "USING COVERING INDEX sessions_started_at"
        default: index = "SEARCH f USING INTEGER PRIMARY KEY (rowid<?)"
        }
        #expect(text.contains(index), "\(text)")
        #expect(plan.contains { $0.hasPrefix("SEARCH s USING INTEGER PRIMARY KEY") }, "the page's rows by id: \(text)")
    }

    @Test("tags come from meta when a session is stored; what is not a tag is left out, and nothing fails")
    func tagsFromMeta() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tags.db")
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let long = String(repeating: "é", count: 32) // 64 bytes: the longest tag
        let metas: [JSONValue] = [
            ["tags": ["bug report", "beta", "bug report", 3, "", .string(long), .string(long + "x"), .null, ["nested"]]],
            ["tags": "bug report"],
            ["tags": .array((0..<20).map { .string("t\($0)") })],
            ["version": 2, "device": ["model": "x"]],
            [:],
            "not an object",
        ]
        var ids: [Int64] = []
        for (i, meta) in metas.enumerated() {
            ids.append(try writer.openSession(uuid: "u\(i)", app: "A", startedAt: Self.start, meta: meta))
        }
        // Meta text that is not JSON at all (only a hand-made row has it): stored, no tags.
        let raw = try Connection(path: path)
        try raw.execute("INSERT INTO sessions(uuid, app, started_at, meta) VALUES ('hand', 'A', 1, 'not json')")
        let reader = try LogReader(path: path)
        let stored = { (id: Int64) throws -> [String] in
            let statement = try raw.prepare("SELECT tag FROM session_tags WHERE session_id = ?1 ORDER BY tag")
            try statement.bind(id, at: 1)
            var tags: [String] = []
            while try statement.step() { tags.append(statement.string(0)) }
            return tags
        }
        #expect(try stored(ids[0]) == ["beta", "bug report", long].sorted())
        #expect(try reader.session(id: ids[0]).tags == ["bug report", "beta", long])
        #expect(try stored(ids[1]).isEmpty)
        #expect(try stored(ids[2]) == (0..<16).map { "t\($0)" }.sorted())
        #expect(try reader.session(id: ids[2]).tags.count == 16)
        #expect(try reader.session(id: ids[3]).appVersion == nil)
        #expect(try reader.sessions(matching: SessionFilter(appVersion: "2")).isEmpty)
        #expect(try raw.scalarInt("SELECT count(*) FROM sessions WHERE device IS NOT NULL OR app_version IS NOT NULL") == 0)
        #expect(try reader.sessions(matching: SessionFilter(tag: "t15")).map(\.id) == [ids[2]])
        #expect(try reader.sessions(matching: SessionFilter(tag: "t16")).isEmpty)
        #expect(try raw.scalarInt("SELECT count(*) FROM session_tags WHERE session_id = (SELECT id FROM sessions WHERE uuid = 'hand')") == 0)
    }

    @Test("tags are append-only and go only with their session's prune")
    func tagsAppendOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("prune.db")
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let kept = try writer.openSession(uuid: "kept", app: "A", startedAt: Self.start, meta: ["tags": ["x"]])
        let gone = try writer.openSession(uuid: "gone", app: "A", startedAt: Self.start, meta: ["tags": ["x", "y"]])
        let raw = try Connection(path: path)
        #expect(throws: LogError.self) { try raw.execute("UPDATE session_tags SET tag = 'z'") }
        #expect(throws: LogError.self) { try raw.execute("DELETE FROM session_tags") }
        #expect(throws: LogError.self) { try raw.execute("UPDATE sessions SET meta = '{\"tags\":[\"z\"]}'") }
        #expect(try raw.scalarInt("SELECT count(*) FROM session_tags") == 3)
        #expect(try writer.prune(sessions: [gone]) == [gone])
        #expect(try raw.scalarInt("SELECT count(*) FROM session_tags") == 1)
        #expect(try LogReader(path: path).sessions(matching: SessionFilter(tag: "x")).map(\.id) == [kept])
    }
}

/// Schema 6 on a file written before it: the columns are computed from the meta already stored,
/// and the tags of the sessions already there are indexed by the migration.
@Suite("Log file: schema 5 to 6", .ownThreads)
struct SessionMetaSchemaTests {
    static func makeVersion5(at path: String) throws {
        try SendSiteSchemaTests.makeVersion2(at: path)
        let raw = try Connection(path: path)
        for version in 3...5 {
            try raw.execute(SchemaSQL.migrations[version - 1])
            try raw.execute("INSERT INTO rewind_schema(version, applied_at) VALUES (\(version), 1700000002)")
            try raw.execute("PRAGMA user_version=\(version)")
        }
        try raw.execute("""
            INSERT INTO sessions(uuid, app, started_at, meta) VALUES
                ('tagged', 'Todos', 1700000100, '{"version":"1.4","device":"iPhone15,2","os":"iOS 17.4","tags":["bug report","beta"]}'),
                ('plain', 'Todos', 1700000200, '{"version":"1.5"}'),
                ('hand', 'Hand', 1700000300, 'not json')
            """)
    }

    @Test("a schema-5 log opens as schema 7 and its sessions gain the metadata: versions, devices, tags")
    func migrates() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v5.db")
        try Self.makeVersion5(at: path)
        #expect(try Connection(path: path).scalarInt("PRAGMA user_version") == 5)
        let writer = try LogWriter(path: path)
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("PRAGMA user_version") == 7)
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_schema WHERE version = 6") == 1)
        #expect(try raw.scalarInt("SELECT count(*) FROM session_tags") == 2)
        // What was stored is unchanged: the old session, its events, the meta text.
        let reader = try LogReader(path: path)
        #expect(try reader.events(session: 1).map(\.seq) == [0, 1, 2])
        #expect(try raw.scalarInt("SELECT count(*) FROM sessions WHERE meta = 'not json'") == 1)
        let tagged = try reader.session(named: "tagged")
        #expect(tagged.appVersion == "1.4" && tagged.device == "iPhone15,2" && tagged.os == "iOS 17.4")
        #expect(tagged.tags == ["bug report", "beta"])
        #expect(try reader.sessions(matching: SessionFilter(tag: "bug report")).map(\.uuid) == ["tagged"])
        #expect(try reader.sessions(matching: SessionFilter(appVersion: "1.5")).map(\.uuid) == ["plain"])
        #expect(try reader.sessions(matching: SessionFilter(device: "iPhone15,2")).map(\.uuid) == ["tagged"])
        #expect(try reader.sessions(matching: SessionFilter(app: "Todos")).count == 2)
        // The row whose meta is not JSON has no version, device or tags, and breaks no filter.
        #expect(try raw.scalarInt("SELECT count(*) FROM sessions WHERE uuid = 'hand' AND app_version IS NULL AND device IS NULL") == 1)
        // A session stored after the migration gets its tags from the trigger.
        let id = try writer.openSession(uuid: "new", app: "Todos", startedAt: Date(), meta: ["tags": ["beta"], "device": "arm64"])
        writer.close()
        #expect(try reader.sessions(matching: SessionFilter(tag: "beta")).map(\.id) == [try reader.session(named: "tagged").id, id])
        #expect(try reader.sessions(matching: SessionFilter(device: "arm64")).map(\.id) == [id])
    }
}
