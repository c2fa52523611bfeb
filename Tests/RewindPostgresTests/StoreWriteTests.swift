import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindTestSupport
import Testing

/// What a writer stores and a reader gives back, the same on the SQLite file and on PostgreSQL:
/// every test runs once per store.
@Suite("One log API, two stores: writing and reading back", .ownThreads)
struct StoreWriteTests {
    static let uuid = "3f2a0000-0000-4000-8000-000000000001"

    @Test("appended events read back whole: keyframes, causes, durations, coalesced, times, hashes", arguments: StoreKind.allCases)
    func appendAndReadBack(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let meta: JSONValue = ["version": "1.0", "nested": ["a": [1, 2.5, "x", nil, true]], "é": "✓"]
        let id = try writer.openSession(uuid: Self.uuid, app: "Counter", startedAt: Events.start, meta: meta)
        var events = Events.events(session: id, seqs: 0..<120, keyframeEvery: 25)
        // Times that are no short decimals, a hash with the high bit set, an action that is a
        // bare string, a cause far back.
        // (Made from seconds since 1970, as stored: a Date moved by a third of a second from
        // another would lose its last bit on the way, on either store.)
        events[7].at = Date(timeIntervalSince1970: 1_700_000_007 + 1.0 / 3.0)
        events[8].hash = UInt64.max
        events[9].hash = 1 << 63
        events[10].action = "logout"
        events[10].actionType = LogEvent.actionType(of: "logout")
        events[11].cause = 0
        events[12].durationNs = Int64.max
        writer.append(Array(events[0..<50]))
        writer.append(Array(events[50...]))
        try writer.flush()

        let reader = try store.reader()
        #expect(try reader.events(session: id, includeKeyframes: true) == events)
        #expect(try reader.events(session: id) == Events.withoutKeyframes(events))
        #expect(try reader.events(session: id, from: 48, to: 52, includeKeyframes: true) == Array(events[48...52]))
        #expect(try reader.events(session: id, limit: 3).map(\.seq) == [0, 1, 2])
        #expect(try reader.keyframeSeqs(session: id) == [0, 25, 50, 75, 100])
        #expect(try reader.keyframe(atOrBefore: 60, session: id) == Keyframe(seq: 50, state: events[50].keyframe!))
        #expect(try reader.event(session: id, seq: 75) == events[75])
        #expect(try reader.event(session: id, seq: 76) == Events.withoutKeyframes([events[76]])[0])
        #expect(try reader.event(session: id, seq: 500) == nil)
        let steps = try reader.patches(session: id, from: 10, to: 12, descending: true).all()
        #expect(steps == [12, 11, 10].map { PatchStep(seq: $0, patch: events[Int($0)].patch, inverse: events[Int($0)].inverse, hash: events[Int($0)].hash) })

        let info = try reader.session(id: id)
        #expect(info == SessionInfo(id: id, uuid: Self.uuid, app: "Counter", startedAt: Events.start, meta: meta, eventCount: 120,
                                    lastSeq: 119, keyframeCount: 5, lastEventAt: events[119].at))
        #expect(try reader.session(named: "3F2A").id == id)
        #expect(try reader.session(named: "latest").id == id)
        #expect(try reader.session(named: String(id)).id == id)
        #expect(try reader.eventCount() == 120)
        #expect(try reader.eventCount(session: id) == 120)
        #expect(try writer.nextSeq(session: id) == 120)
        #expect(try writer.sessionID(uuid: Self.uuid) == id)
        #expect(try writer.sessionID(uuid: "nobody") == nil)

        // Reopening the uuid (an app reconnecting) keeps the id; the end is recorded.
        #expect(try writer.openSession(uuid: Self.uuid, app: "Counter", startedAt: Events.start) == id)
        try writer.endSession(id: id, at: Events.start.addingTimeInterval(500.25))
        #expect(try reader.session(id: id).endedAt == Events.start.addingTimeInterval(500.25))
        let unknown = #expect(throws: LogError.self) { try writer.endSession(id: 999, at: Events.start) }
        #expect(unknown?.kind == .unknownSession("999"))
    }

    @Test("a batch that leaves a gap, repeats a seq or names an unknown session is refused whole; nothing of it is stored",
          arguments: StoreKind.allCases)
    func refusedBatches(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let id = try writer.openSession(uuid: Self.uuid, app: "Counter", startedAt: Events.start)
        let other = try writer.openSession(uuid: "other", app: "Counter", startedAt: Events.start)
        try appendCommitted(writer, Events.events(session: id, seqs: 0..<10))

        let completions = Completions()
        writer.append(Events.events(session: id, seqs: 12..<14), completion: completions.handler)  // a gap
        writer.append(Events.events(session: id, seqs: 9..<11), completion: completions.handler)   // 9 again
        // 10 and 11, then 11 again, in one batch.
        writer.append(Events.events(session: id, seqs: 10..<12) + [Events.event(session: id, seq: 11)], completion: completions.handler)
        // Good events of `other`, then one of `id` with a gap: none of it may be stored.
        writer.append(Events.events(session: other, seqs: 0..<3) + [Events.event(session: id, seq: 15)], completion: completions.handler)
        writer.append([Events.event(session: 999, seq: 0)], completion: completions.handler)
        // A patch that is not an array is refused before the batch is queued.
        var bad = Events.events(session: other, seqs: 0..<2)
        bad[1].patch = ["op": "add"]
        writer.append(bad, completion: completions.handler)
        writer.append(Events.events(session: id, seqs: 10..<12), completion: completions.handler)
        let results = try #require(completions.wait(for: 7))
        try writer.flush()

        let errors = results.compactMap(\.error)
        #expect(errors.count == 6)
        let kinds = errors.map(\.kind)
        #expect(kinds.contains(.seqOutOfOrder(session: id, expected: 10, found: 12)))
        #expect(kinds.contains(.seqOutOfOrder(session: id, expected: 10, found: 9)))
        #expect(kinds.contains(.seqOutOfOrder(session: id, expected: 12, found: 11)))
        #expect(kinds.contains(.seqOutOfOrder(session: id, expected: 10, found: 15)))
        #expect(kinds.contains(.unknownSession("999")))
        #expect(kinds.contains(.invalidEvent(session: other, seq: 1)))
        let sentences = errors.map(\.description)
        #expect(sentences.contains("Session \(id) expects seq 10 next, but seq 12 leaves a gap; the batch was not written."))
        #expect(sentences.contains("Session \(id) expects seq 10 next, but seq 9 is already stored (a duplicate); the batch was not written."))
        #expect(sentences.allSatisfy(isOneSentence))

        let reader = try store.reader()
        #expect(try reader.events(session: id) == Events.withoutKeyframes(Events.events(session: id, seqs: 0..<12)))
        #expect(try reader.eventCount(session: other) == 0)
        #expect(try reader.keyframeSeqs(session: other).isEmpty)
        #expect(try writer.nextSeq(session: id) == 12)
        #expect(try writer.nextSeq(session: other) == 0)
        // The session goes on where it stands.
        try appendCommitted(writer, Events.events(session: other, seqs: 0..<2))
        #expect(try reader.eventCount(session: other) == 2)
    }

    /// A session of `count` states of a nested document, recorded with hash `version`.
    static func record(_ writer: any LogStoreWriter, uuid: String, version: StateHashVersion, count: Int = 60,
                       run: String? = nil) throws -> (Int64, [JSONValue]) {
        let id = try writer.openSession(uuid: uuid, app: "Hashes", startedAt: Events.start, meta: [:], replayOf: nil, run: run,
                                        hashVersion: version)
        var builder = EventBuilder(sessionID: id, policy: KeyframePolicy(maxEvents: 16, maxPatchBytesRatio: 1_000), hashVersion: version)
        var states: [JSONValue] = []
        var events: [LogEvent] = []
        for seq in 0..<count {
            let state: JSONValue = ["n": .number(JSONNumber(seq)), "label": "a label long enough for every lane of the hash",
                                    "items": .array((0..<(seq % 5)).map { ["id": .number(JSONNumber($0)), "seen": .bool(seq % 2 == 0)] })]
            states.append(state)
            events.append(seq == 0 ? builder.initial(state: state, at: Events.start)
                : builder.next(action: ["type": "tick", "n": .number(JSONNumber(seq))], state: state, at: Events.start.addingTimeInterval(Double(seq))))
        }
        try appendCommitted(writer, events)
        return (id, states)
    }

    @Test("sessions of both state hash versions verify; a resume with the other version is refused", arguments: StoreKind.allCases)
    func hashVersions(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let (v1, states) = try Self.record(writer, uuid: "v1", version: .v1)
        let (v2, _) = try Self.record(writer, uuid: "v2", version: .v2)
        let reader = try store.reader()
        for (id, version) in [(v1, StateHashVersion.v1), (v2, .v2)] {
            #expect(try reader.session(id: id).hashVersion == version)
            let timeline = try Timeline(reader: reader, session: id)
            let report = try timeline.verify()
            #expect(report.passed)
            #expect(report.eventsChecked == 60)
            #expect(try timeline.state(at: 37) == states[37])
        }
        // Both hold the same states: no difference, though their hashes differ.
        #expect(try reader.events(session: v1, from: 5, to: 5).first?.hash != reader.events(session: v2, from: 5, to: 5).first?.hash)
        #expect(try reader.firstDifference(between: v1, and: v2) == nil)
        #expect(try writer.openSession(uuid: "v2", app: "Hashes", startedAt: Events.start, meta: [:], replayOf: nil, run: nil, hashVersion: .v2) == v2)
        let refused = #expect(throws: LogError.self) {
            try writer.openSession(uuid: "v2", app: "Hashes", startedAt: Events.start, meta: [:], replayOf: nil, run: nil, hashVersion: .v1)
        }
        #expect(refused?.kind == .hashVersionMismatch(session: "v2", stored: 2, requested: 1))
        #expect(refused?.description == "Session v2 in \(store.location) records state hash version 2; it cannot continue with version 1.")
        let other = #expect(throws: LogError.self) {
            try writer.openSession(uuid: "v1", app: "Hashes", startedAt: Events.start, meta: [:], replayOf: nil, run: nil, hashVersion: .v2)
        }
        #expect(other?.kind == .hashVersionMismatch(session: "v1", stored: 1, requested: 2))
        #expect(try reader.session(id: v2).hashVersion == .v2)
    }

    @Test("a session belongs to its owner: the same secret reopens it, another or none is refused before anything else is told; one with no owner is claimed once", arguments: StoreKind.allCases)
    func owners(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let secret = SessionOwner.newSecret()
        #expect(secret.utf8.count == 64 && secret != SessionOwner.newSecret())
        func open(_ uuid: String, _ owner: SessionOwner?, hashVersion: StateHashVersion = .v1) throws -> Int64 {
            try writer.openSession(uuid: uuid, app: "Owned", startedAt: Events.start, meta: [:], replayOf: nil, run: nil,
                                   hashVersion: hashVersion, owner: owner)
        }
        let id = try open("owned", .keeping(secret))
        #expect(try open("owned", .keeping(secret)) == id)
        #expect(try open("owned", .proving(secret)) == id)
        for intruder in [SessionOwner.proving(SessionOwner.newSecret()), nil] {
            let refused = #expect(throws: LogError.self) { try open("owned", intruder) }
            #expect(refused?.kind == .notOwner(session: "owned"))
        }
        // Checked first: a wrong secret with a wrong hash version learns nothing of the version.
        let first = #expect(throws: LogError.self) { try open("owned", .proving("another secret, long enough"), hashVersion: .v2) }
        #expect(first?.kind == .notOwner(session: "owned"))
        let reader = try store.reader()
        let kept = try #require(try reader.owner(session: id))
        #expect(kept.digest == SessionOwner.keeping(secret).digest && kept.digest.utf8.count == 64 && kept.digest != secret)
        #expect(kept.secret == secret)

        // A session with no owner (recorded before owners): the first secret claims it, a server
        // keeping only the digest.
        let open1 = try open("unowned", nil)
        #expect(try open("unowned", nil) == open1)
        let claimer = SessionOwner.newSecret()
        #expect(try open("unowned", .proving(claimer)) == open1)
        #expect(try reader.owner(session: open1) == SessionOwner(secret: nil, digest: SessionOwner.proving(claimer).digest))
        let late = #expect(throws: LogError.self) { try open("unowned", .proving(SessionOwner.newSecret())) }
        #expect(late?.kind == .notOwner(session: "unowned"))
        #expect(try open("unowned", .keeping(claimer)) == open1)
        // The store itself keeps the owner fixed.
        #expect(throws: (any Error).self) { try store.execute("UPDATE sessions SET owner = 'x' WHERE uuid = 'owned'") }
        #expect(try reader.owner(session: id)?.digest == kept.digest)
    }

    @Test("non-finite marks and send sites are stored with their events", arguments: StoreKind.allCases)
    func marksAndSites(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let id = try writer.openSession(uuid: Self.uuid, app: "Marks", startedAt: Events.start)
        var events = Events.events(session: id, seqs: 0..<20, keyframeEvery: 10)
        events[0].nonFinite = ["/state/ratio"]
        events[4].nonFinite = ["/state/list/2", "/action/payload/value", "/state/a~1b"]
        events[4].site = SendSite(file: "Shop/CartView.swift", line: 42, function: "addTapped()")
        events[5].site = SendSite(file: "Sources/É ✓.swift", line: 0, function: "f(_:)")
        events[10].nonFinite = ["/state"]
        events[10].site = SendSite(file: "a", line: Int(Int32.max), function: "b")
        try appendCommitted(writer, events)
        let reader = try store.reader()
        #expect(try reader.events(session: id, includeKeyframes: true) == events)
        #expect(try reader.events(session: id, from: 4, to: 5).map(\.site) == [events[4].site, events[5].site])
        #expect(try reader.events(session: id, from: 4, to: 4).first?.nonFinite == ["/state/list/2", "/action/payload/value", "/state/a~1b"])
        #expect(try reader.event(session: id, seq: 6)?.nonFinite == [])
        #expect(try reader.event(session: id, seq: 6)?.site == nil)
    }

    @Test("runs: a session keeps its run; a resume in another run is refused", arguments: StoreKind.allCases)
    func runs(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        let inRun = try writer.openSession(uuid: "in-run", app: "A", startedAt: Events.start, meta: [:], replayOf: nil, run: "run-1", hashVersion: .v1)
        let noRun = try writer.openSession(uuid: "no-run", app: "A", startedAt: Events.start)
        // The same run, or none, resumes it.
        #expect(try writer.openSession(uuid: "in-run", app: "A", startedAt: Events.start, meta: [:], replayOf: nil, run: "run-1", hashVersion: .v1) == inRun)
        #expect(try writer.openSession(uuid: "in-run", app: "A", startedAt: Events.start) == inRun)
        let other = #expect(throws: LogError.self) {
            try writer.openSession(uuid: "in-run", app: "A", startedAt: Events.start, meta: [:], replayOf: nil, run: "run-2", hashVersion: .v1)
        }
        #expect(other?.kind == .runMismatch(session: "in-run", stored: "run-1", requested: "run-2"))
        #expect(other?.description == "Session in-run in \(store.location) was recorded in run run-1; it cannot continue in run run-2 (a resume names the session's own run, or none).")
        let none = #expect(throws: LogError.self) {
            try writer.openSession(uuid: "no-run", app: "A", startedAt: Events.start, meta: [:], replayOf: nil, run: "run-3", hashVersion: .v1)
        }
        #expect(none?.kind == .runMismatch(session: "no-run", stored: nil, requested: "run-3"))
        let reader = try store.reader()
        #expect(try reader.session(id: inRun).run == "run-1")
        #expect(try reader.session(id: noRun).run == nil)
    }

    @Test("export as JSONL, then import: the same bytes come back", arguments: StoreKind.allCases)
    func exportImportRoundTrip(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let lines = [
            #"{"state":{"todos":[],"n":1.10,"big":12345678901234567890},"at":1700000000}"#,
            #"{"action":{"type":"add","title":"milk"},"state":{"todos":["milk"],"n":1.10,"big":12345678901234567890},"at":1700000000.125}"#,
            #"{"action":{"type":"add","title":"é ✓ \"q\" \\ tab\t"},"state":{"todos":["milk","é ✓ \"q\" \\ tab\t"],"n":1.10,"big":12345678901234567890},"at":1700000001.5}"#,
            #"{"action":null,"state":{"todos":[],"n":"NaN","big":12345678901234567890}}"#,
            #"{"action":["x"],"state":{"todos":[],"n":"-Infinity","big":1e300},"at":1700000009}"#,
        ]
        let file = Array(lines.map { $0 + "\n" }.joined().utf8)
        let writer = try store.writer()
        let id = try writer.write(try SessionImport.parse(file), uuid: "import-1", app: "Import")
        writer.close()
        let reader = try store.reader()
        var exported: [UInt8] = []
        var exporter = SessionExporter(reader: reader, session: try reader.session(id: id))
        exporter.pageSize = 2
        try exporter.write(.jsonl) { exported += $0 }
        #expect(String(decoding: exported, as: UTF8.self) == String(decoding: file, as: UTF8.self))
        #expect(try reader.session(id: id).endedAt == Date(timeIntervalSince1970: 1_700_000_009))
        #expect(try Timeline(reader: reader, session: id).verify().passed)
        // An import never adds to a session: the uuid is taken now.
        let again = try store.writer()
        defer { again.close() }
        let taken = #expect(throws: LogError.self) { try again.write(try SessionImport.parse(file), uuid: "import-1", app: "Import") }
        #expect(taken?.kind == .invalidEvent(session: id, seq: 0))
        #expect(try reader.eventCount(session: id) == 5)

        // A recorded session exported, then imported again: the same states and actions.
        let (recorded, states) = try Self.record(again, uuid: "recorded", version: .v1, count: 80)
        var recording: [UInt8] = []
        try SessionExporter(reader: reader, session: try reader.session(id: recorded)).write(.jsonl) { recording += $0 }
        let reimported = try again.write(try SessionImport.parse(recording), uuid: "reimported", app: "Hashes")
        let timeline = try Timeline(reader: reader, session: reimported)
        #expect(try (0..<80).map { try timeline.state(at: Int64($0)) } == states)
        #expect(try reader.events(session: reimported).map(\.action) == reader.events(session: recorded).map(\.action))
        #expect(try reader.events(session: reimported).map(\.at) == reader.events(session: recorded).map(\.at))
        #expect(try timeline.verify().passed)
    }

    @Test("prune removes the sessions named, or those inactive too long; the others stay whole and searchable", arguments: StoreKind.allCases)
    func prune(kind: StoreKind) throws {
        let store = try kind.make()
        defer { store.cleanup() }
        let writer = try store.writer()
        defer { writer.close() }
        var ids: [Int64] = []
        for n in 0..<3 {
            let id = try writer.openSession(uuid: "session-\(n)", app: "Counter", startedAt: Events.start,
                                            meta: ["tags": .array([.string("tag\(n)")])], replayOf: nil, run: nil, hashVersion: .v1)
            ids.append(id)
            var events = Events.events(session: id, seqs: 0..<30, keyframeEvery: 12)
            events[5] = Events.event(session: id, seq: 5, text: "marker\(n)")
            events[5].nonFinite = ["/state/x"]
            events[6].site = SendSite(file: "f", line: 1, function: "g")
            try appendCommitted(writer, events)
        }
        #expect(try writer.prune(sessions: [ids[1], 999]) == [ids[1]])
        let reader = try store.reader()
        #expect(try reader.sessions().map(\.id) == [ids[0], ids[2]])
        #expect(try reader.eventCount() == 60)
        #expect(try reader.stats().keyframes == 6)
        #expect(try reader.events(session: ids[0], text: "marker0").map(\.seq) == [5])
        #expect(try reader.events(session: ids[1], text: "marker1").isEmpty)
        #expect(try reader.sessions(matching: SessionFilter(tag: "tag1")).isEmpty)
        #expect(try reader.sessions(matching: SessionFilter(tag: "tag2")).map(\.id) == [ids[2]])
        #expect(try reader.event(session: ids[2], seq: 5)?.nonFinite == ["/state/x"])
        let gone = #expect(throws: LogError.self) { try writer.nextSeq(session: ids[1]) }
        #expect(gone?.kind == .unknownSession(String(ids[1])))
        #expect(try writer.nextSeq(session: ids[2]) == 30)
        #expect(try writer.prune(sessions: []) == [])

        // By age: the last activity (end, last event or start) decides.
        let now = Events.start.addingTimeInterval(30 * 86_400)
        let old = try writer.openSession(uuid: "old", app: "A", startedAt: Events.start)
        let ended = try writer.openSession(uuid: "ended-late", app: "A", startedAt: Events.start)
        let active = try writer.openSession(uuid: "active", app: "A", startedAt: Events.start)
        let recent = try writer.openSession(uuid: "recent", app: "A", startedAt: now.addingTimeInterval(-86_400))
        try appendCommitted(writer, Events.events(session: old, seqs: 0..<3))
        try writer.endSession(id: ended, at: now.addingTimeInterval(-2 * 86_400))
        try appendCommitted(writer, [Events.event(session: active, seq: 0), Events.event(session: active, seq: 1, at: now.addingTimeInterval(-3_600))])
        let removed = try writer.prune(olderThanDays: 7, now: now)
        #expect(Set(removed) == Set([ids[0], ids[2], old]))
        #expect(try reader.sessions().map(\.id) == [ended, active, recent])
        #expect(try writer.prune(olderThanDays: 7, now: now) == [])
    }
}
