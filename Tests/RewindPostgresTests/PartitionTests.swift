import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindReplay
import RewindSupport
import RewindTestSupport
import Testing

/// Retention that scales (issue 43): the team store's event tables are partitioned by ranges of
/// session ids, prune drops a range whose sessions all go, and a database of the previous layout
/// (schema 2) moves to it without losing a row.
@Suite("The team store's partitions: prune by range, the migration from schema 2", .ownThreads)
struct PartitionTests {
    static var cluster: PostgresTestCluster {
        get throws { try PostgresTestCluster.shared() }
    }

    /// Every row of every table a session has, as text, in a stable order: equal before and after
    /// means no row was lost or changed.
    static func everyRow(_ url: String) throws -> String {
        try cluster.psql("""
            SELECT 'sessions', count(*), md5(coalesce(string_agg(concat_ws('|', id, uuid, app, started_at, ended_at, meta, replay_of, run, hash_version, owner, secret), E'\\n' ORDER BY id), '')) FROM sessions;
            SELECT 'events', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced), E'\\n' ORDER BY session_id, seq), '')) FROM events;
            SELECT 'keyframes', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, seq, state), E'\\n' ORDER BY session_id, seq), '')) FROM keyframes;
            SELECT 'non_finite', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, seq, pointers), E'\\n' ORDER BY session_id, seq), '')) FROM non_finite;
            SELECT 'send_sites', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, seq, file, line, function), E'\\n' ORDER BY session_id, seq), '')) FROM send_sites;
            SELECT 'session_tags', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, tag), E'\\n' ORDER BY session_id, tag), '')) FROM session_tags;
            SELECT 'deliveries', count(*), md5(coalesce(string_agg(concat_ws('|', session_id, server, acked_seq), E'\\n' ORDER BY session_id), '')) FROM deliveries;
            """, database: url)
    }

    /// The session-id ranges that have partitions, as `lower-upper`, and the partitions of
    /// `events` PostgreSQL has.
    static func ranges(_ url: String) throws -> (registry: [String], events: [String]) {
        let registry = try cluster.psql("SELECT lower || '-' || upper FROM rewind_partitions ORDER BY lower", database: url)
        let tables = try cluster.psql("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY c.relname",
                                      database: url)
        return (registry.split(separator: "\n").map(String.init), tables.split(separator: "\n").map(String.init))
    }

    /// A fresh database whose ranges will hold 4 sessions (set before its first writer).
    static func databaseWithRangesOf4(prefix: String) throws -> String {
        let url = try cluster.createDatabase(prefix: prefix)
        _ = try cluster.psql("ALTER DATABASE \(PostgresTestCluster.databaseName(url)) SET rewind.partition_sessions = '4'")
        return url
    }

    @Test("a database written by the previous release (schema 2) moves to partitions with every row of every table as it was, and takes new sessions after")
    func migrationFromSchema2() throws {
        let url = try Self.cluster.createDatabase(prefix: "schema2")
        defer { try? Self.cluster.dropDatabase(url) }
        // Written by the release before this layout: `rewind serve --db` with `rewind demo`
        // streaming four apps, then `rewind import` of a JSONL file, dumped with pg_dump.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/schema2.sql")
        _ = try Self.cluster.psql(try String(contentsOf: fixture, encoding: .utf8), database: url)
        #expect(try Self.cluster.psql("SELECT max(version) FROM rewind_schema", database: url) == "2")
        // What the demo does not write, written as that release's store writes it.
        _ = try Self.cluster.psql("""
            SET rewind.pruning = 'off';
            INSERT INTO non_finite(session_id, seq, pointers) SELECT session_id, seq, '["/state/ratio"]' FROM events WHERE seq = 2;
            INSERT INTO session_tags(session_id, tag) SELECT id, 'bug report' FROM sessions WHERE id % 2 = 1;
            INSERT INTO deliveries(session_id, server, acked_seq) SELECT id, 'ws://127.0.0.1:7433/app', 3 FROM sessions WHERE id < 3;
            """, database: url)
        let before = try Self.everyRow(url)
        #expect(before.contains("events|85|"), "\(before)")
        #expect(!before.contains("|0|d41d8cd98f00b204e9800998ecf8427e"), "every table has rows: \(before)")

        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        #expect(try Self.cluster.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM rewind_schema", database: url) == "1,2,3,4,5,6")
        #expect(try Self.everyRow(url) == before)
        // Every table with a row per event is partitioned now; the old tables are gone.
        #expect(try Self.cluster.psql("""
            SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class
            WHERE relname IN ('events', 'keyframes', 'non_finite', 'send_sites', 'events_v2', 'keyframes_v2')
            """, database: url) == "events:p,keyframes:p,non_finite:p,send_sites:p")
        #expect(try Self.ranges(url).registry == ["0-1024", "1024-2048"])
        // Schema 4: every events partition the migration made compresses its rows' text.
        #expect(try Self.cluster.psql("""
            SELECT count(*) FILTER (WHERE c.reloptions @> ARRAY['toast_tuple_target=128']), count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass
            """, database: url) == "2|2")

        // Read back through the store: every session, and its last state rebuilt.
        let reader = try store.openReader()
        let sessions = try reader.sessions()
        #expect(sessions.count == 5)
        for session in sessions {
            #expect(try Timeline(reader: reader, session: session.id).verify().passed, "\(session.uuid)")
        }
        #expect(try reader.events(session: 5, text: "café").count == 30)
        // What the tables take is their partitions' sizes (a partitioned table has none itself).
        let stats = try reader.stats()
        #expect(stats.events == 85)
        #expect(stats.eventBytes > 8_192 && stats.keyframeBytes > 8_192 && stats.textIndexBytes > 8_192, "\(stats)")
        #expect(stats.fileBytes > stats.eventBytes + stats.keyframeBytes + stats.textIndexBytes, "\(stats)")
        // And it takes sessions as before, the triggers guarding the new tables.
        let id = try writer.openSession(uuid: "after-migration", app: "Todos", startedAt: Events.start)
        #expect(id == 6)
        try appendCommitted(writer, Events.events(session: id, seqs: 0..<4) + [Events.event(session: id, seq: 4, text: "Crème brûlée, s'il vous plaît"),
                                                                               Events.event(session: id, seq: 5, text: "milk, eggs and bread for the week")])
        // Schemas 5 and 6: the rows written before keep neither words nor lexemes and are found
        // through their action (above: café); of the new ones, an ASCII action of eight words or
        // more carries the writer's lexemes (PostgreSQL's own), any other its words, and each is
        // found through them.
        #expect(try Self.cluster.psql("""
            SELECT count(*) FILTER (WHERE words IS NULL AND lexemes IS NULL), count(*) FILTER (WHERE lexemes IS NOT NULL), count(*) FROM events
            """, database: url) == "85|1|91")
        let words = try Self.cluster.psql("SELECT words, lexemes IS NULL FROM events WHERE session_id = \(id) AND seq = 4", database: url)
        #expect(words == "type counter increment payload step 4 note creme brulee s il vous plait|t", "\(words)")
        #expect(try Self.cluster.psql("SELECT words FROM events WHERE session_id = \(id) AND seq = 3", database: url)
                == "type counter increment payload step 3")
        #expect(try Self.cluster.psql("""
            SELECT words IS NULL AND lexemes = to_tsvector('simple', \(TextQuery.postgresDocumentFromAction("action"))) FROM events WHERE session_id = \(id) AND seq = 5
            """, database: url) == "t")
        #expect(try reader.events(session: id, text: "brulee").map(\.seq) == [4])
        #expect(try reader.events(session: id, text: "counter/INCREMENT").count == 6)
        #expect(try reader.events(session: id, text: "step").count == 6)
        #expect(try reader.events(session: id, text: "bread for").map(\.seq) == [5])
        #expect(try reader.events(session: id, text: "for bread").map(\.seq) == [5], "words in any order")
        #expect(try reader.events(session: id, text: "eggs-and-bread").map(\.seq) == [5], "one word's tokens next to each other")
        #expect(try reader.events(session: id, text: "eggs-bread").isEmpty, "not next to each other")
        let gap = #expect(throws: LogError.self) { try appendCommitted(writer, [Events.event(session: id, seq: 9)]) }
        #expect(gap?.description.contains("seq 9") == true, "\(gap?.description ?? "")")
        #expect(throws: PostgresTestClusterError.self) { try Self.cluster.psql("DELETE FROM events_p0 WHERE session_id = 1", database: url) }
        #expect(try Self.cluster.psql("SELECT count(*) FROM events WHERE session_id = 1", database: url) != "0")
    }

    @Test("an event's text is kept compressed in its row and a keyframe's state compressed with lz4; both read back byte for byte")
    func compressedRows() throws {
        let url = try Self.databaseWithRangesOf4(prefix: "compact")
        defer { try? Self.cluster.dropDatabase(url) }
        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        // Sessions in the first range and in ranges made later by rewind_ensure_partition.
        var written: [Int64: [LogEvent]] = [:]
        for index in 0..<6 {
            let id = try writer.openSession(uuid: "c\(index)", app: "Notes", startedAt: Events.start)
            var builder = EventBuilder(sessionID: id)
            var events = [builder.initial(state: ["note": .string(String(repeating: "start ", count: 800))], at: Events.start)]
            for k in 1..<12 {
                events.append(builder.next(action: ["type": "note/edit", "text": .string(String(repeating: "word\(k) ", count: 200))],
                                           state: ["note": .string(String(repeating: "text \(k) ", count: 300))], at: Events.start))
            }
            try appendCommitted(writer, events)
            written[id] = events
        }
        // 11 events a session with an action, patch and inverse of 1.5-2.4 KB: each compressed
        // in place with lz4, none moved to a TOAST table (seq 0's patch, `[]`, is too short).
        #expect(try Self.cluster.psql("""
            SELECT count(*) FROM events WHERE pg_column_compression(action) = 'lz4' AND pg_column_compression(patch) = 'lz4'
                AND pg_column_compression(inverse) = 'lz4' AND pg_column_size(patch) < octet_length(patch) / 4
            """, database: url) == "66")
        #expect(try Self.cluster.psql("""
            SELECT count(*) FILTER (WHERE pg_column_compression(state) = 'lz4') = count(*) AND count(*) >= 6 FROM keyframes
            """, database: url) == "t")
        #expect(try Self.cluster.psql("""
            SELECT coalesce(sum(pg_relation_size(c.reltoastrelid)), 0) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass AND c.reltoastrelid <> 0
            """, database: url) == "0")
        #expect(try Self.ranges(url).events.count >= 2)
        let reader = try store.openReader()
        for (id, events) in written {
            #expect(try reader.events(session: id, includeKeyframes: true) == events, "session \(id)")
            #expect(try Timeline(reader: reader, session: id).state(at: 11) == ["note": .string(String(repeating: "text 11 ", count: 300))])
        }
    }

    @Test("prune drops a range whose sessions all go (its four tables), deletes row by row only in ranges that keep a session, skips a session another instance writes, and never drops the newest range")
    func pruneByRange() throws {
        let url = try Self.databaseWithRangesOf4(prefix: "ranges")
        defer { try? Self.cluster.dropDatabase(url) }
        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        let other = try store.openWriter()
        defer { other.close() }
        var ids: [Int64] = []
        for number in 1...14 {
            // Session 6 is another instance's, still being written.
            let id = try (number == 6 ? other : writer).openSession(uuid: "s\(number)", app: "A", startedAt: Events.start,
                                                                   meta: ["tags": .array([.string("t\(number)")])])
            var events = Events.events(session: id, seqs: 0..<6, keyframeEvery: 3)
            events[2].nonFinite = ["/state/x"]
            events[4].site = SendSite(file: "f.swift", line: number, function: "g()")
            try appendCommitted(number == 6 ? other : writer, events)
            ids.append(id)
        }
        #expect(ids == Array(1...14))
        #expect(try Self.ranges(url).registry == ["0-4", "4-8", "8-12", "12-16", "16-20"])

        let pruned = try writer.prune(sessions: Array(1...10))
        #expect(pruned == [1, 2, 3, 4, 5, 7, 8, 9, 10])
        let (registry, tables) = try Self.ranges(url)
        #expect(registry == ["4-8", "8-12", "12-16", "16-20"])
        #expect(tables == ["events_p12", "events_p16", "events_p4", "events_p8"])
        #expect(try Self.cluster.psql("SELECT count(*) FROM pg_class WHERE relname IN ('keyframes_p0', 'non_finite_p0', 'send_sites_p0', 'events_p0')",
                                      database: url) == "0")
        #expect(try Self.cluster.psql("SELECT string_agg(DISTINCT session_id::text, ',' ORDER BY session_id::text) FROM events", database: url)
                == "11,12,13,14,6")
        for table in ["keyframes", "non_finite", "send_sites", "session_tags"] {
            #expect(try Self.cluster.psql("SELECT count(DISTINCT session_id) FROM \(table)", database: url) == "5", "\(table)")
        }
        // What is left reads whole.
        let reader = try store.openReader()
        #expect(try reader.sessions().map(\.uuid) == ["s6", "s11", "s12", "s13", "s14"])
        #expect(try Timeline(reader: reader, session: 6).state(at: 5) == ["count": 5, "title": "counter"])

        // Session 6 let go: its range has nothing else left, and goes as a whole.
        other.close()
        #expect(try writer.prune(sessions: [6]) == [6])
        #expect(try Self.ranges(url).registry == ["8-12", "12-16", "16-20"])
        // The newest range (session 14's) stays even when all of it goes: sessions land there.
        #expect(try writer.prune(sessions: [11, 12, 13, 14]) == [11, 12, 13, 14])
        #expect(try Self.ranges(url).registry == ["12-16", "16-20"])
        let next = try writer.openSession(uuid: "s15", app: "A", startedAt: Events.start)
        #expect(next == 15)
        try appendCommitted(writer, Events.events(session: next, seqs: 0..<3))
        #expect(try Self.cluster.psql("SELECT count(*) FROM events", database: url) == "3")
        // A partition refuses what its table refuses.
        for sql in ["DELETE FROM events_p12", "UPDATE keyframes_p12 SET state = '{}'", "TRUNCATE send_sites_p12"] {
            let error = #expect(throws: PostgresTestClusterError.self, "\(sql)") { try Self.cluster.psql(sql, database: url) }
            #expect(error?.reason.contains("is append-only") == true, "\(sql): \(error?.reason ?? "")")
        }
        // And takes rows only through its table, whose check of the seqs it would skip.
        let direct = #expect(throws: PostgresTestClusterError.self) {
            try Self.cluster.psql("INSERT INTO events_p12(session_id, seq, at, action_type, action, patch, inverse, hash) VALUES (15, 7, 0, 'x', '{}', '[]', '[]', 0)",
                                  database: url)
        }
        #expect(direct?.reason.contains("events_p12 is a partition: insert into its table") == true, "\(direct?.reason ?? "")")
        // Through the table, a statement whose rows leave a hole anywhere is refused whole.
        let holed = #expect(throws: PostgresTestClusterError.self) {
            try Self.cluster.psql("""
                INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
                VALUES (15, 3, 0, 'x', '{}', '[]', '[]', 0), (15, 5, 0, 'x', '{}', '[]', '[]', 0)
                """, database: url)
        }
        #expect(holed?.reason.contains("an event must extend its session") == true, "\(holed?.reason ?? "")")
        // An event of no session is refused by the same statement check (schema 4: no foreign
        // key a row), and nothing of its statement is stored.
        #expect(try Self.cluster.psql("SELECT count(*) FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'f'", database: url) == "0")
        let orphan = #expect(throws: PostgresTestClusterError.self) {
            try Self.cluster.psql("""
                INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
                VALUES (15, 3, 0, 'x', '{}', '[]', '[]', 0), (17, 0, 0, 'x', '{}', '[]', '[]', 0)
                """, database: url)
        }
        #expect(orphan?.reason.contains("an event must belong to a session: there is no session 17") == true, "\(orphan?.reason ?? "")")
        #expect(try Self.cluster.psql("SELECT count(*) FROM events WHERE session_id IN (15, 17) AND seq >= 3", database: url) == "0")
        _ = try Self.cluster.psql("""
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
            VALUES (15, 4, 0, 'x', '{}', '[]', '[]', 0), (15, 3, 0, 'x', '{}', '[]', '[]', 0)
            """, database: url)
        #expect(try Self.cluster.psql("SELECT max(seq) FROM events WHERE session_id = 15", database: url) == "4")
    }

    @Test("a range made ahead waits at most 2 s for the queries on its tables, then leaves it to the next session; no session waits behind it")
    func partitionsMadeAheadGiveWay() throws {
        let url = try Self.databaseWithRangesOf4(prefix: "ahead")
        defer { try? Self.cluster.dropDatabase(url) }
        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        for number in 1...3 {
            _ = try writer.openSession(uuid: "s\(number)", app: "A", startedAt: Events.start)
        }
        #expect(try Self.ranges(url).registry == ["0-4", "4-8"])
        // A long read holds `events` while session 4 asks for the range after its own (8-12).
        let reader = try PGConnection(url: PostgresURL(url))
        try reader.execute("BEGIN; LOCK TABLE events IN ACCESS SHARE MODE")
        // On a thread of its own, so that a session that waited for the read fails the test
        // (the read ends at the deadline) instead of hanging it.
        let opened = Condition<Result<Int64, LogError>?>(nil)
        Thread {
            let result = Result { () throws(LogError) in try writer.openSession(uuid: "s4", app: "A", startedAt: Events.start) }
            opened.update(waking: .all) { $0 = result }
        }.start()
        let result: Result<Int64, LogError>? = opened.withLock(when: { $0 != nil }, deadline: MonotonicClock.deadline(after: 20)) { $0 } ?? nil
        if result == nil { try reader.execute("COMMIT") }
        let id = try #require(result, "the session waited over 20 s for a read of events").get()
        #expect(id == 4)
        try appendCommitted(writer, Events.events(session: id, seqs: 0..<3))
        #expect(try Self.ranges(url).registry == ["0-4", "4-8"])
        try reader.execute("COMMIT")
        // The next session makes it.
        _ = try writer.openSession(uuid: "s5", app: "A", startedAt: Events.start)
        #expect(try Self.ranges(url).registry == ["0-4", "4-8", "8-12"])
    }
}
