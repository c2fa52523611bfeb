import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

/// What a reader finds, the same on the SQLite file and on PostgreSQL: text search, type globs,
/// session lists, and the replay engine's questions. Every test runs once per store.
@Suite("One log API, two stores: search, globs, lists, timelines", .ownThreads)
struct StoreQueryTests {
    // MARK: Text search

    /// The notes of the search session's events that are not "item N".
    static let notes: [Int64: String] = [
        3: "buy milk for ada@example.com",
        5: "Café crème at 9:30",
        7: "ÉCOLE Straße",
        8: "state-of-the-art node_modules",
        9: #"say "hi" *now*"#,
        11: "O'Brien & Sons (Ltd.) 100%",
    ]

    @Test("text search: every word must appear, case-insensitive, punctuation split as the tokenizer splits", arguments: StoreKind.allCases)
    func textSearch(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let id = try writer.openSession(uuid: "search", app: "Search", startedAt: Events.start)
        let other = try writer.openSession(uuid: "other", app: "Search", startedAt: Events.start)
        let types = ["todo/add", "todo/toggle", "user/rename", "filter/set"]
        try appendCommitted(writer, (0..<14).map { seq in
            Events.event(session: id, seq: seq, type: types[Int(seq) % 4], text: Self.notes[seq] ?? "item \(seq)")
        })
        try appendCommitted(writer, [Events.event(session: other, seq: 0, text: "milk for ada@example.com")])
        try writer.flush()
        let reader = try store.reader()
        func found(_ text: String, session: Int64? = nil, type: String? = nil, limit: Int? = nil) throws -> [Int64] {
            try reader.events(session: session ?? id, typeGlob: type, text: text, limit: limit).map(\.seq)
        }
        #expect(try found("milk") == [3])
        #expect(try found("MILK") == [3])
        #expect(try found("ada@example.com") == [3])
        #expect(try found("ADA@Example.COM") == [3])
        #expect(try found("example") == [3])
        #expect(try found("ada@example") == [3])
        #expect(try found("example.com ada") == [3], "several words, in any order")
        #expect(try found("  buy   ada  ") == [3])
        #expect(try found("milk item").isEmpty, "every word must appear")
        #expect(try found("ada@com").isEmpty, "the words of one word follow one another")
        #expect(try found("crème") == [5])
        #expect(try found("CRÈME") == [5])
        #expect(try found("café 9:30") == [5])
        #expect(try found("9:30") == [5])
        #expect(try found("école") == [7])
        // Accents go, as FTS5's tokenizer drops them.
        #expect(try found("ecole cafe").isEmpty)
        #expect(try found("ecole") == [7])
        #expect(try found("CAFE creme") == [5])
        #expect(try found("strasse").isEmpty, "ß is a letter of its own")
        #expect(try found("straße") == [7])
        #expect(try found("state-of-the-art") == [8])
        #expect(try found("node_modules") == [8])
        #expect(try found("modules node") == [8])
        #expect(try found("o'brien (ltd.) 100%") == [11])
        #expect(try found("sons & ltd") == [11])
        // What would be the search engines' own syntax is taken as words.
        #expect(try found(#""hi" *now* AND OR NEAR("#).isEmpty)
        #expect(try found(#"say "hi" *now*"#) == [9])
        #expect(try found("hi & !now | (say)") == [9])
        #expect(try found("'").isEmpty, "a word without letters or digits matches nothing")
        #expect(try found("&& !").isEmpty)
        #expect(try found("   ") == Array(0..<14))
        #expect(try found("item", limit: 2) == [0, 1])
        #expect(try found("item", type: "todo/*") == [0, 1, 4, 12, 13])
        #expect(try found("milk", session: other) == [0])
        #expect(try found("crème", session: other).isEmpty, "no other session's events")
    }

    // MARK: Type globs

    /// One event per action type, in this order (seq = index).
    static let actionTypes = [
        "todo/add", "todo/toggle", "todo/remove", "filter/set", "login", "logout", "a.b", "axb", "a+b", "aab", "a", "b", "c",
        "d", "x", "-", "]", "^", "[", "[x]", "a(b)", "a^b", "a$b", "a|b", "a{2}", "aa", #"a\b"#, "Todo/Add", "todo/", "é/ü",
        "[]", ":]", "a*b", "a?b",
    ]

    /// Globs and the types SQLite's GLOB gives them (checked on the file, then asked of PostgreSQL).
    static let globs: [(glob: String, types: [String])] = [
        ("*", actionTypes),
        ("todo/*", ["todo/add", "todo/toggle", "todo/remove", "todo/"]),
        ("todo/?dd", ["todo/add"]),
        ("log?n", ["login"]),
        ("log*", ["login", "logout"]),
        ("?", ["a", "b", "c", "d", "x", "-", "]", "^", "["]),
        ("[a-c]", ["a", "b", "c"]),
        ("[^x]", ["a", "b", "c", "d", "-", "]", "^", "["]),
        ("[!x]", ["x"]),
        ("a.b", ["a.b"]),
        ("a+b", ["a+b"]),
        ("a(b)", ["a(b)"]),
        ("a^b", ["a^b"]),
        ("a$b", ["a$b"]),
        ("a|b", ["a|b"]),
        ("a{2}", ["a{2}"]),
        (#"a\b"#, [#"a\b"#]),
        ("a[.+]b", ["a.b", "a+b"]),
        ("a?b", ["a.b", "axb", "a+b", "aab", "a^b", "a$b", "a|b", #"a\b"#, "a*b", "a?b"]),
        ("a[*]b", ["a*b"]),
        ("[[]x]", ["[x]"]),
        ("[x]", ["x"]),
        ("[]x]", ["x", "]"]),
        ("[]]", ["]"]),
        ("[^]x]", ["a", "b", "c", "d", "-", "^", "["]),
        ("[]^]", ["]", "^"]),
        ("[-a]", ["a", "-"]),
        ("[a-]", ["a", "-"]),
        ("[z-a]", []),
        ("[x-a]", ["x"]),
        ("[a-c-e]", ["a", "b", "c", "-"]),
        ("[[:alpha:]]", ["[]", ":]"]),
        (#"[\]"#, []),
        (#"a[\]b"#, [#"a\b"#]),
        ("*/*", ["todo/add", "todo/toggle", "todo/remove", "filter/set", "Todo/Add", "todo/", "é/ü"]),
        ("é/?", ["é/ü"]),
        ("[à-ê]/[ü]", ["é/ü"]),
        ("Todo/*", ["Todo/Add"]),
        ("[", []),
        ("a[", []),
        ("*[", []),
        ("[]", []),
        ("[^]", []),
        ("", actionTypes),
    ]

    static func recordTypes(_ writer: any LogStoreWriter) throws -> Int64 {
        let id = try writer.openSession(uuid: "types", app: "Types", startedAt: Events.start)
        try appendCommitted(writer, actionTypes.enumerated().map { seq, type in Events.event(session: id, seq: Int64(seq), type: type) })
        return id
    }

    @Test("type globs: *, ?, [a-c], [^x], and every character a regular expression would read, as SQLite's GLOB reads them",
          arguments: StoreKind.allCases)
    func typeGlobs(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let id = try Self.recordTypes(writer)
        let reader = try store.reader()
        #expect(try reader.events(session: id).map(\.actionType) == Self.actionTypes)
        for (glob, types) in Self.globs {
            #expect(try reader.events(session: id, typeGlob: glob).map(\.actionType) == types, "glob \(glob)")
        }
        #expect(try reader.events(session: id, typeGlob: "log*", limit: 1).map(\.actionType) == ["login"])
        #expect(try reader.events(session: id, from: 5, to: 8, typeGlob: "a?b").map(\.actionType) == ["a.b", "axb", "a+b"])
    }

    @Test("PostgreSQL answers every glob as the SQLite file does, odd ones included")
    func globsAgreeAcrossStores() throws {
        let file = try StoreKind.sqlite.make()
        defer { file.cleanup() }
        let database = try StoreKind.postgres.make()
        defer { database.cleanup() }
        var readers: [LogReader] = []
        var ids: [Int64] = []
        for store in [file, database] {
            let writer = try store.writer()
            ids.append(try Self.recordTypes(writer))
            writer.close()
            readers.append(try store.reader())
        }
        var globs = Self.globs.map(\.glob)
        // Every glob of up to three characters from the glob's own alphabet, and longer odd ones.
        let alphabet = ["[", "]", "^", "-", "*", "?", "a", "x", "\\", "!", "."]
        for first in alphabet {
            for second in alphabet {
                globs.append(first + second)
                for third in alphabet { globs.append(first + second + third) }
            }
        }
        globs += ["[a-c-e-]", "[--a]", "[---]", "[^-]", "[]-a]", "[a-]]", "*[]]*", "[^^]", "[a-a]", "[é-ü]*", "*?*?*", "[[]]", "[[:a:]]x"]
        var differences: [String] = []
        for glob in globs {
            let expected = try readers[0].events(session: ids[0], typeGlob: glob).map(\.actionType)
            let answered = try readers[1].events(session: ids[1], typeGlob: glob).map(\.actionType)
            if expected != answered { differences.append("\(glob): SQLite \(expected), PostgreSQL \(answered)") }
        }
        #expect(differences == [])
    }

    // MARK: Session lists

    /// 40 sessions: two apps, three versions, two devices, tags, a minute apart.
    static func recordList(_ writer: any LogStoreWriter) throws -> [SessionInfo] {
        var sessions: [SessionInfo] = []
        for n in 0..<40 {
            var meta: JSONObject = ["version": .string(["1.0", "1.1", "2.0"][n % 3]), "device": .string(n % 2 == 0 ? "iPhone15,2" : "x86_64")]
            var tags: [JSONValue] = []
            if n % 4 == 0 { tags.append("bug report") }
            if n % 5 == 0 { tags.append("beta") }
            if n % 7 == 0 { tags += [.number(3), "", "beta"] }  // not tags, and a repeat
            if !tags.isEmpty { meta["tags"] = .array(tags) }
            let app = n % 3 == 2 ? "Todo" : "Shop"
            let startedAt = Events.start.addingTimeInterval(Double(n) * 60)
            let uuid = String(format: "%08x-0000-4000-8000-%012x", n, n)
            let id = try writer.openSession(uuid: uuid, app: app, startedAt: startedAt, meta: .object(meta), replayOf: nil, run: nil, hashVersion: .v1)
            if n % 6 == 0 { try appendCommitted(writer, Events.events(session: id, seqs: 0..<Int64(n % 5 + 1))) }
            sessions.append(SessionInfo(id: id, uuid: uuid, app: app, startedAt: startedAt, meta: .object(meta)))
        }
        return sessions
    }

    @Test("session lists filter by app, version, device, tag and time, and page through an after cursor", arguments: StoreKind.allCases)
    func sessionLists(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let sessions = try Self.recordList(writer)
        let reader = try store.reader()
        let filters: [(SessionFilter, (SessionInfo) -> Bool)] = [
            (SessionFilter(), { _ in true }),
            (SessionFilter(app: "Todo"), { $0.app == "Todo" }),
            (SessionFilter(appVersion: "1.1"), { $0.appVersion == "1.1" }),
            (SessionFilter(device: "x86_64"), { $0.device == "x86_64" }),
            (SessionFilter(tag: "beta"), { $0.tags.contains("beta") }),
            (SessionFilter(tag: "bug report"), { $0.tags.contains("bug report") }),
            (SessionFilter(tag: "Beta"), { _ in false }),
            (SessionFilter(since: Events.start.addingTimeInterval(600)), { $0.startedAt >= Events.start.addingTimeInterval(600) }),
            (SessionFilter(until: Events.start.addingTimeInterval(600)), { $0.startedAt < Events.start.addingTimeInterval(600) }),
            (SessionFilter(app: "Shop", appVersion: "2.0", device: "iPhone15,2", tag: "bug report",
                           since: Events.start.addingTimeInterval(300), until: Events.start.addingTimeInterval(1_800)), { info in
                info.app == "Shop" && info.appVersion == "2.0" && info.device == "iPhone15,2" && info.tags.contains("bug report")
                    && info.startedAt >= Events.start.addingTimeInterval(300) && info.startedAt < Events.start.addingTimeInterval(1_800)
            }),
            (SessionFilter(app: "Nobody"), { _ in false }),
        ]
        for (filter, keeps) in filters {
            let expected = sessions.filter(keeps).map(\.id)
            #expect(try reader.sessions(matching: filter).map(\.id) == expected, "\(filter)")
            // Pages of 3, newest first, each after the last one's cursor.
            var paged: [Int64] = []
            var page = try reader.sessions(matching: filter, limit: 3)
            paged += page.sessions.map(\.id)
            var pages = 1
            while let next = page.next {
                page = try reader.sessions(matching: filter, after: next, limit: 3)
                paged += page.sessions.map(\.id)
                pages += 1
            }
            #expect(paged == expected.reversed(), "\(filter)")
            #expect(pages == max(1, (expected.count + 2) / 3), "\(filter)")
        }
        // A page's sessions carry their counts; the tags the list read are the meta's.
        let first = try reader.sessions(matching: SessionFilter(), limit: 1_000).sessions.last
        #expect(first?.id == sessions[0].id)
        #expect(first?.eventCount == 1)
        #expect(first?.tags == ["bug report", "beta"])
        #expect(try reader.sessions(matching: SessionFilter(), after: sessions[5].id, limit: 2).sessions.map(\.id) == [sessions[4].id, sessions[3].id])
        #expect(try reader.session(uuid: sessions[7].uuid)?.id == sessions[7].id)
        #expect(try reader.session(uuid: "nobody") == nil)
    }

    // MARK: Timelines

    /// A shop's states: a cart of items with nested options, a user, a list that grows and
    /// shrinks, and now and then a non-finite number recorded as the recorder records it.
    static func shopStates(count: Int) -> [JSONValue] {
        var states: [JSONValue] = []
        var cart: [JSONValue] = []
        var total = 0
        for seq in 0..<count {
            if seq % 5 == 1 {
                cart.append(["sku": .string("sku-\(seq)"), "price": .number(JSONNumber(seq % 17 + 1)),
                             "options": ["size": .string(["S", "M", "L"][seq % 3]), "gift": .bool(seq % 2 == 0)]])
                total += seq % 17 + 1
            } else if seq % 11 == 0, !cart.isEmpty {
                total -= cart.removeFirst()["price"]?.numberValue?.int64Value.map(Int.init) ?? 0
            }
            let ratio: JSONValue = seq % 13 == 0 ? "NaN" : JSONNumber(Double(total) / 4).map(JSONValue.number) ?? .null
            states.append(["cart": .array(cart), "total": .number(JSONNumber(total)), "ratio": ratio,
                           "user": ["name": .string(seq < count / 2 ? "Ada" : "Grace"), "visits": .number(JSONNumber(seq / 10))]])
        }
        return states
    }

    @Test("timelines answer state, diff, blame, find and verify alike", arguments: StoreKind.allCases)
    func timelines(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let id = try writer.openSession(uuid: "shop", app: "Shop", startedAt: Events.start)
        // Longer than two of a PostgreSQL walk's pages (LogReader.walkPage seqs), so blame, find
        // and verify cross page boundaries, forwards and backwards.
        let count = 4_500
        let states = Self.shopStates(count: count)
        var builder = EventBuilder(sessionID: id, policy: KeyframePolicy(maxEvents: 40, maxPatchBytesRatio: 1_000))
        var events = [builder.initial(state: states[0], at: Events.start)]
        for seq in 1..<states.count {
            events.append(builder.next(action: ["type": "shop/step", "seq": .number(JSONNumber(seq))], state: states[seq],
                                       at: Events.start.addingTimeInterval(Double(seq)), durationNs: Int64(seq)))
        }
        for index in events.indices where states[index]["ratio"] == "NaN" { events[index].nonFinite = ["/state/ratio"] }
        try appendCommitted(writer, events)
        let reader = try store.reader()
        let timeline = try Timeline(reader: reader, session: id)
        for seq in [0, 1, 39, 40, 41, 150, 1_999, 2_000, 2_001, 4_499] {
            #expect(try timeline.state(at: Int64(seq)) == states[seq], "seq \(seq)")
        }
        #expect(try timeline.diff(from: 10, to: 250) == JSONDiff(from: states[10], to: states[250]))
        // The walk itself, over page boundaries both ways, and stopped part way.
        var down: [Int64] = []
        try reader.walkEvents(session: id, from: Int64.min, to: Int64.max, descending: true) { row in
            down.append(row.seq)
            return true
        }
        #expect(down.count == count && down.first == Int64(count - 1) && down.last == 0 && zip(down, down.dropFirst()).allSatisfy { $0.0 == $0.1 + 1 })
        var up: [Int64] = []
        try reader.walkEvents(session: id, from: 1_990, to: 9_999_999) { row in
            up.append(row.seq)
            return row.seq < 2_600
        }
        #expect(up.first == 1_990 && up.last == 2_600 && up.count == 611)
        #expect(try timeline.diff(from: 250, to: 10) == JSONDiff(from: states[250], to: states[10]))

        let name = try JSONPointer("/user/name")
        #expect(try timeline.blame(path: name).map(\.seq) == [0, Int64(count / 2)])
        #expect(try timeline.blame(path: name).last?.before == "Ada")
        let total = try JSONPointer("/total")
        let changes = (1..<states.count).filter { states[$0]["total"] != states[$0 - 1]["total"] }.map(Int64.init)
        #expect(try timeline.blame(path: total).map(\.seq) == [0] + changes)
        #expect(try timeline.find(path: total, condition: .changed).hits.map(\.seq) == changes)
        let over = try timeline.find(path: total, condition: .greaterThan(40), all: true)
        var expected: [Int64] = []
        var holding = false
        for (seq, state) in states.enumerated() {
            let holds = (state["total"]?.numberValue?.doubleValue ?? 0) > 40
            if holds != holding { expected.append(Int64(seq)) }
            holding = holds
        }
        #expect(over.hits.map(\.seq) == expected)
        #expect(over.complete)
        let ratios = try timeline.find(path: try JSONPointer("/ratio"), condition: .isEqual("NaN"))
        #expect(ratios.hits.map(\.seq) == (0..<states.count).filter { $0 % 13 == 0 && ($0 == 0 || ($0 - 1) % 13 != 0) }.map(Int64.init))
        let gift = try timeline.find(path: try JSONPointer("/cart/0/options/gift"), condition: .exists, first: true)
        #expect(gift.hits.first?.seq == 1)
        let report = try timeline.verify()
        #expect(report.passed)
        #expect(report.eventsChecked == count)
        #expect(report.keyframesChecked == (try reader.keyframeSeqs(session: id)).count)
        #expect(try reader.events(session: id, from: 13, to: 13).first?.nonFinite == ["/state/ratio"])
    }
}
