import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

/// The `sessions` request with filters and pages, on a log of thousands of sessions, and what
/// a hello stores for the list to filter on.
@Suite("Inspectors: the session list, filtered and paged", .ownThreads)
struct SessionListQueryTests {
    static let start = Date(timeIntervalSince1970: 1_763_000_000)

    /// A server on a log of `count` sessions (apps, versions, devices cycling; every 7th tagged
    /// "bug report"; session i started i minutes after ``start``), written before it starts.
    static func served(count: Int) throws -> ServerFixture {
        try ServerFixture { configuration in
            // These tests are about what each page holds; the time budget has tests of its own,
            // and under the whole suite's load a page of 2,500 sessions once took past 5 s.
            configuration.queryTimeBudget = 60
            let writer = try? LogWriter(path: configuration.logPath)
            defer { writer?.close() }
            for i in 0..<count {
                let meta: JSONValue = [
                    "version": .string(["1.0", "1.1", "2.0"][i % 3]), "device": .string(["iPhone15,2", "x86_64"][i % 2]),
                    "tags": i % 7 == 0 ? ["bug report"] : ["ci"],
                ]
                _ = try? writer?.openSession(uuid: "s-\(i)", app: ["Todos", "Shop", "Maps", "Notes"][i % 4],
                                             startedAt: start.addingTimeInterval(Double(i) * 60), meta: meta)
            }
        }
    }

    static func ids(_ reply: JSONValue?) -> [Int64] {
        reply?["sessions"]?.arrayValue?.compactMap { $0["id"]?.int64 } ?? []
    }

    /// Every page of `request`, following `next`; the ids in the order listed.
    static func pages(_ inspector: JSONClient, _ request: JSONObject, firstID: Int) throws -> (ids: [Int64], pages: Int) {
        var ids: [Int64] = []
        var after: JSONValue = .null
        var id = firstID
        for pages in 1...1_000 {
            var message = request
            message["type"] = "sessions"
            message["id"] = .number(JSONNumber(Int64(id)))
            if after != .null { message["after"] = after }
            inspector.send(.object(message))
            let reply = try #require(inspector.waitForReply(id: id))
            #expect(reply["type"] == "sessions", "\(reply)")
            ids += Self.ids(reply)
            after = reply["next"] ?? .null
            if after == .null { return (ids, pages) }
            id += 1
        }
        Issue.record("more than 1,000 pages")
        return (ids, 0)
    }

    @Test("each filter keeps what it names, a page at a time, newest first; a request with no filter still lists all")
    func filtersAndPages() throws {
        let fixture = try Self.served(count: 2_500)
        let all = try fixture.reader().sessions()
        #expect(all.count == 2_500)
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }

        // An old client's request: every session, oldest first, as before.
        inspector.send(["type": "sessions", "id": 1])
        let legacy = try #require(inspector.waitForReply(id: 1))
        #expect(Self.ids(legacy) == all.map(\.id))
        #expect(legacy["next"] == nil)
        // Members set to null are absent: still the whole list.
        inspector.send(["type": "sessions", "id": 2, "limit": .null, "tag": .null])
        #expect(Self.ids(inspector.waitForReply(id: 2)).count == 2_500)

        let minute = { (i: Int) in Self.start.timeIntervalSince1970 + Double(i) * 60 }
        let at = { (i: Int) -> JSONValue in .number(JSONNumber(Int64(minute(i)))) }
        let cases: [(JSONObject, (SessionInfo) -> Bool)] = [
            ([:], { _ in true }),
            (["app": "Maps"], { $0.app == "Maps" }),
            (["appVersion": "1.1"], { $0.appVersion == "1.1" }),
            (["device": "iPhone15,2"], { $0.device == "iPhone15,2" }),
            (["tag": "bug report"], { $0.tags == ["bug report"] }),
            (["since": at(2_000), "until": at(2_100)],
             { $0.startedAt.timeIntervalSince1970 >= minute(2_000) && $0.startedAt.timeIntervalSince1970 < minute(2_100) }),
            (["app": "Todos", "appVersion": "2.0", "device": "iPhone15,2", "tag": "ci", "since": at(500)],
             { $0.app == "Todos" && $0.appVersion == "2.0" && $0.device == "iPhone15,2" && $0.tags == ["ci"]
                 && $0.startedAt.timeIntervalSince1970 >= minute(500) }),
        ]
        var id = 10
        for (filter, keeps) in cases {
            let expected = Array(all.filter(keeps).map(\.id).reversed())
            #expect(!expected.isEmpty, "\(filter)")
            var request = filter
            request["limit"] = 300
            let (ids, pages) = try Self.pages(inspector, request, firstID: id)
            #expect(ids == expected, "\(filter): \(ids.count) listed, \(expected.count) expected")
            #expect(pages == max(1, (expected.count + 299) / 300), "\(filter): \(pages) pages")
            id += 1_000
        }
        // The default page is 100 sessions, with the fields the list filters on.
        inspector.send(["type": "sessions", "id": 5, "tag": "bug report"])
        let page = try #require(inspector.waitForReply(id: 5))
        let first = try #require(page["sessions"]?.arrayValue?.first)
        #expect(page["sessions"]?.arrayValue?.count == 100)
        #expect(first["tags"] == ["bug report"] && first["appVersion"] != .null && first["device"] != .null && first["live"] == false)
        #expect(page["next"]?.int64 == Self.ids(page).last)
    }

    static let malformedCases: [(JSONObject, String)] = [
        (["limit": 0], "sessions: \"limit\" must be between 1 and 1000"),
        (["limit": 1_001], "sessions: \"limit\" must be between 1 and 1000"),
        (["limit": 2.5], "sessions: \"limit\" must be an integer"),
        (["after": -1], "sessions: \"after\" must be a non-negative integer"),
        (["tag": ""], "sessions: \"tag\" must be a non-empty string of at most 256 bytes; this one has 0"),
        (["app": .string(String(repeating: "a", count: 257))], "sessions: \"app\" must be a non-empty string of at most 256 bytes; this one has 257"),
        (["device": 5], "sessions: \"device\" must be a string"),
        (["since": "yesterday"], "sessions: \"since\" must be a time in seconds since 1970 (a number)"),
        (["until": ["t": 1]], "sessions: \"until\" must be a time in seconds since 1970 (a number)"),
        ]

    @Test("a malformed filter is a bad-message naming the member, and the connection goes on", arguments: malformedCases)
    func malformed(filter: JSONObject, sentence: String) throws {
        let fixture = try Self.served(count: 3)
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        var request = filter
        request["type"] = "sessions"
        request["id"] = 1
        inspector.send(.object(request))
        let error = try #require(inspector.waitForReply(id: 1))
        #expect(error["type"] == "error")
        #expect(error["code"] == "bad-message")
        #expect(error["message"]?.stringValue == sentence)
        inspector.send(["type": "sessions", "id": 2, "limit": 2])
        #expect(Self.ids(inspector.waitForReply(id: 2)) == [3, 2])
    }

    @Test("a hello's version is stored in meta; tags that are no tags are refused, and nothing is stored")
    func helloMeta() throws {
        let fixture = try ServerFixture()
        let app = try JSONClient.app(port: fixture.port)
        defer { app.close() }
        let good = AppMessage.Hello(id: 1, session: "good", app: "Todos", version: "3.1",
                                    meta: ["device": "iPad13,4", "tags": ["bug report"]])
        app.send(AppMessage.hello(good).json)
        #expect(app.waitFor { $0["type"] == "welcome" } != nil)
        let stored = try fixture.reader().session(named: "good")
        #expect(stored.appVersion == "3.1" && stored.device == "iPad13,4" && stored.tags == ["bug report"])

        let cases: [(JSONValue, String)] = [
            ("bug", "hello: \"meta.tags\" must be a list of at most 16 strings of 1 to 64 bytes"),
            (.array((0..<17).map { .string("t\($0)") }), "hello: \"meta.tags\" must be a list of at most 16 strings of 1 to 64 bytes"),
            (["ok", 5], "hello: \"meta.tags\" must be a list of at most 16 strings of 1 to 64 bytes; item 1 is not a string"),
            (["ok", ""], "hello: \"meta.tags\" item 1: a tag must not be empty"),
            ([.string(String(repeating: "é", count: 33))], "hello: \"meta.tags\" item 0: a tag has at most 64 bytes of UTF-8; this one has 66"),
        ]
        for (index, (tags, sentence)) in cases.enumerated() {
            let other = try JSONClient.app(port: fixture.port)
            defer { other.close() }
            let hello = AppMessage.Hello(id: .number(JSONNumber(Int64(index))), session: "bad-\(index)", app: "Todos", meta: ["tags": tags])
            other.send(AppMessage.hello(hello).json)
            let error = try #require(other.waitFor { $0["type"] == "error" })
            #expect(error["code"] == "bad-message")
            #expect(error["message"]?.stringValue == sentence)
            #expect(throws: LogError.self) { try fixture.reader().session(named: "bad-\(index)") }
        }
    }

    @Test("a page larger than the connection's bound is cut, and next goes on from the last session it holds")
    func pageCutToFit() throws {
        // 1 MiB of output per connection: half of it for a page, so two sessions with a meta of
        // 200 KB each fit, three do not; one of 600 KB alone is too large.
        let fixture = try ServerFixture { configuration in
            configuration.queueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 1 << 20)
            let writer = try? LogWriter(path: configuration.logPath)
            defer { writer?.close() }
            _ = try? writer?.openSession(uuid: "huge", app: "Big", startedAt: Self.start,
                                         meta: ["notes": .string(String(repeating: "n", count: 600_000))])
            for i in 0..<10 {
                _ = try? writer?.openSession(uuid: "big-\(i)", app: "Big", startedAt: Self.start,
                                             meta: ["notes": .string(String(repeating: "n", count: 200_000)), "tags": ["big"]])
            }
        }
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        let (ids, pages) = try Self.pages(inspector, ["tag": "big", "limit": 10], firstID: 1)
        #expect(ids == Array((2...11).reversed()).map(Int64.init))
        #expect(pages == 5, "two sessions a page")
        inspector.send(["type": "sessions", "id": 100, "app": "Big", "after": 2])
        let error = try #require(inspector.waitForReply(id: 100))
        #expect(error["code"] == "reply-too-large")
        #expect(error["message"]?.stringValue == "session 1 alone is larger than this connection's reply limit of 524288 bytes for a page")
    }
}
