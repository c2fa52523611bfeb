import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindSupport
import RewindTestSupport
import Testing

/// What only the team store has: its triggers, the per-session lease, migrations under a lock,
/// and the sentences for a database that cannot be used.
@Suite("The team store (PostgreSQL): append-only, leases, migrations, connection errors", .ownThreads)
struct PostgresStoreTests {
    static var cluster: PostgresTestCluster {
        get throws { try PostgresTestCluster.shared() }
    }

    /// A fresh database, its store, and a session of 20 events with a keyframe, a mark, a site
    /// and a tag written through it.
    private func databaseWithSession() throws -> (url: String, store: PostgresLogStore, id: Int64) {
        let url = try Self.cluster.createDatabase(prefix: "pg_only")
        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        let id = try writer.openSession(uuid: "kept", app: "A", startedAt: Events.start, meta: ["tags": ["bug report"]])
        var events = Events.events(session: id, seqs: 0..<20, keyframeEvery: 10)
        events[3].nonFinite = ["/state/x"]
        events[4].site = SendSite(file: "f.swift", line: 1, function: "g()")
        try appendCommitted(writer, events)
        return (url, store, id)
    }

    /// What the database holds of its sessions, to compare before and after.
    private func snapshot(_ url: String) throws -> String {
        try Self.cluster.psql("""
            SELECT 'sessions', count(*), coalesce(string_agg(app || ':' || coalesce(ended_at::text, '-'), ',' ORDER BY id), '') FROM sessions;
            SELECT 'events', count(*), coalesce(sum(hash % 1000), 0) FROM events;
            SELECT 'keyframes', count(*), coalesce(sum(length(state)), 0) FROM keyframes;
            SELECT 'non_finite', count(*) FROM non_finite;
            SELECT 'send_sites', count(*) FROM send_sites;
            SELECT 'session_tags', count(*), coalesce(string_agg(tag, ','), '') FROM session_tags;
            """, database: url)
    }

    @Test("events, keyframes, marks, sites and tags refuse UPDATE, DELETE and TRUNCATE; a session's identity is fixed, its end is not; prune still deletes")
    func appendOnly() throws {
        let (url, store, id) = try databaseWithSession()
        defer { try? Self.cluster.dropDatabase(url) }
        let before = try snapshot(url)
        let refused = [
            "UPDATE events SET hash = 0",
            "UPDATE events SET action = '{}' WHERE session_id = \(id) AND seq = 3",
            "DELETE FROM events WHERE session_id = \(id) AND seq = 19",
            "TRUNCATE events CASCADE",
            "UPDATE keyframes SET state = '{}'",
            "DELETE FROM keyframes",
            "TRUNCATE keyframes",
            "UPDATE non_finite SET pointers = '[]'",
            "DELETE FROM non_finite",
            "DELETE FROM send_sites",
            "TRUNCATE send_sites",
            "UPDATE session_tags SET tag = 'other'",
            "DELETE FROM session_tags",
            "TRUNCATE session_tags",
            "DELETE FROM sessions",
            "TRUNCATE sessions CASCADE",
        ]
        for sql in refused {
            // Without the NOTICE a cascading TRUNCATE gives first, the error is psql's first line.
            let error = #expect(throws: PostgresTestClusterError.self, "\(sql)") {
                try Self.cluster.psql("SET client_min_messages = warning; " + sql, database: url)
            }
            #expect(error?.reason.contains("is append-only") == true, "\(sql): \(error?.reason ?? "")")
        }
        for sql in ["UPDATE sessions SET app = 'B'", "UPDATE sessions SET uuid = 'x'", "UPDATE sessions SET meta = '{}'",
                    "UPDATE sessions SET started_at = 0", "UPDATE sessions SET run = 'r'", "UPDATE sessions SET hash_version = 2",
                    "UPDATE sessions SET replay_of = 'y'"] {
            let error = #expect(throws: PostgresTestClusterError.self, "\(sql)") { try Self.cluster.psql(sql, database: url) }
            #expect(error?.reason.contains("a session's identity is fixed: only ended_at may change") == true, "\(sql)")
        }
        // Inserts must extend their session: no duplicate (the key refuses it), no gap.
        for (seq, refusal) in [(19, "duplicate key value violates unique constraint"), (25, "an event must extend its session")] {
            let error = #expect(throws: PostgresTestClusterError.self) {
                try Self.cluster.psql("""
                    INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash) VALUES (\(id), \(seq), 0, 'x', '{}', '[]', '[]', 0)
                    """, database: url)
            }
            #expect(error?.reason.contains(refusal) == true, "seq \(seq): \(error?.reason ?? "")")
        }
        #expect(try snapshot(url) == before, "nothing changed")
        try Self.cluster.psql("UPDATE sessions SET ended_at = 1700000100", database: url)
        #expect(try store.openReader().session(id: id).endedAt == Date(timeIntervalSince1970: 1_700_000_100))

        let writer = try store.openWriter()
        defer { writer.close() }
        let other = try writer.openSession(uuid: "other", app: "B", startedAt: Events.start)
        try appendCommitted(writer, Events.events(session: other, seqs: 0..<5))
        #expect(try writer.prune(sessions: [id]) == [id])
        #expect(try Self.cluster.psql("SELECT (SELECT count(*) FROM events) || ' ' || (SELECT count(*) FROM session_tags) || ' ' || (SELECT count(*) FROM sessions)", database: url) == "5 0 1")
        // The triggers still guard what is left, and the setting prune uses lasts only its transaction.
        #expect(throws: PostgresTestClusterError.self) { try Self.cluster.psql("DELETE FROM events", database: url) }
    }

    @Test("a second writer opening a session the first holds gets sessionLeased; after a release or close it takes it, at the stored next seq")
    func leases() throws {
        let url = try Self.cluster.createDatabase(prefix: "leases")
        defer { try? Self.cluster.dropDatabase(url) }
        let first = try PostgresLogWriter(url: url)
        defer { first.close() }
        let second = try PostgresLogWriter(url: url)
        defer { second.close() }
        let id = try first.openSession(uuid: "leased", app: "A", startedAt: Events.start)
        try appendCommitted(first, Events.events(session: id, seqs: 0..<10))

        let refused = #expect(throws: LogError.self) { try second.openSession(uuid: "leased", app: "A", startedAt: Events.start) }
        #expect(refused?.kind == .sessionLeased(session: "leased"))
        let location = try PostgresLogStore(url: url).location
        #expect(refused?.description == "Session leased in \(location) is being written by another rewind serve instance (it holds the session's lease).")
        // Appending to it without opening it is refused the same way, and stores nothing.
        let append = #expect(throws: LogError.self) { try appendCommitted(second, [Events.event(session: id, seq: 10)]) }
        #expect(append?.kind == .sessionLeased(session: String(id)))
        #expect(try first.leasedSessions() == [id])
        #expect(try second.leasedSessions() == [])

        // release(session:) is queued behind the session's appends, without waiting; a commit
        // afterwards returns once it has run.
        first.release(session: id)
        try first.commit()
        #expect(try second.openSession(uuid: "leased", app: "A", startedAt: Events.start) == id)
        #expect(try second.nextSeq(session: id) == 10)
        try appendCommitted(second, Events.events(session: id, seqs: 10..<15))
        let back = #expect(throws: LogError.self) { try first.openSession(uuid: "leased", app: "A", startedAt: Events.start) }
        #expect(back?.kind == .sessionLeased(session: "leased"))
        // The first still believed it knew the next seq: it must ask again, not write seq 10 twice.
        let stale = #expect(throws: LogError.self) { try appendCommitted(first, [Events.event(session: id, seq: 10)]) }
        #expect(stale?.kind == .sessionLeased(session: String(id)))

        // Closing frees every lease.
        second.close()
        #expect(try first.openSession(uuid: "leased", app: "A", startedAt: Events.start) == id)
        #expect(try first.nextSeq(session: id) == 15)
        try appendCommitted(first, Events.events(session: id, seqs: 15..<17))
        let reader = try PostgresLogStore(url: url).openReader()
        #expect(try reader.events(session: id) == Events.withoutKeyframes(Events.events(session: id, seqs: 0..<17)))
    }

    @Test("writers started at once on an empty database all succeed, and each migration is applied once")
    func concurrentMigrations() throws {
        let url = try Self.cluster.createDatabase(prefix: "migrate")
        defer { try? Self.cluster.dropDatabase(url) }
        let count = 6
        let start = Condition(false)
        let outcomes = Condition<[Result<Int64, LogError>]>([])
        for n in 0..<count {
            startThread(named: "test-migrate-\(n)") {
                _ = start.wait(for: { $0 })
                let outcome = Result { () throws(LogError) -> Int64 in
                    let writer = try PostgresLogWriter(url: url)
                    defer { writer.close() }
                    return try writer.openSession(uuid: "writer-\(n)", app: "A", startedAt: Events.start)
                }
                outcomes.update { $0.append(outcome) }
            }
        }
        start.update { $0 = true }
        let results = try #require(outcomes.withLock(when: { $0.count == count }, deadline: MonotonicClock.deadline(after: 120)) { $0 })
        let failures = results.compactMap { result -> LogError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(failures == [])
        #expect(try Self.cluster.psql("SELECT version, count(*) FROM rewind_schema GROUP BY version ORDER BY version", database: url) == "1|1\n2|1\n3|1\n4|1\n5|1\n6|1")
        #expect(try PostgresLogStore(url: url).openReader().sessions().count == count)
    }

    @Test("a database with a newer schema, without Rewind's tables, or not in UTF8 is refused in one sentence")
    func unusableDatabases() throws {
        let newer = try Self.cluster.createDatabase(prefix: "newer")
        defer { try? Self.cluster.dropDatabase(newer) }
        try PostgresLogStore(url: newer).openWriter().close()
        try Self.cluster.psql("INSERT INTO rewind_schema(version, applied_at) VALUES (99, 0)", database: newer)
        let store = try PostgresLogStore(url: newer)
        for error in [#expect(throws: LogError.self) { try store.openWriter() }, #expect(throws: LogError.self) { try store.openReader() }] {
            #expect(error?.kind == .newerSchema(found: 99, supported: 6))
            #expect(error?.description == "\(store.location) was written by a newer Rewind (schema 99); this build reads schema 6.")
        }

        let empty = try Self.cluster.createDatabase(prefix: "empty")
        defer { try? Self.cluster.dropDatabase(empty) }
        let bare = try PostgresLogStore(url: empty)
        let notALog = #expect(throws: LogError.self) { try bare.openReader() }
        #expect(notALog?.kind == .notARewindLog)
        #expect(notALog?.description == "\(bare.location) is not a Rewind log: the database has no Rewind tables yet (rewind serve --db or rewind import --db creates them).")
        // Reading created nothing.
        #expect(try Self.cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: empty) == "0")

        let name = "latin1_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        try Self.cluster.psql("CREATE DATABASE \(name) ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        defer { try? Self.cluster.dropDatabase(name) }
        let latin = try PostgresLogStore(url: Self.cluster.url(database: name))
        let encoding = #expect(throws: LogError.self) { try latin.openWriter() }
        #expect(encoding?.kind == .notARewindLog)
        #expect(encoding?.description == "\(latin.location) is not a Rewind log: its encoding is LATIN1, and a team store needs a UTF8 database (CREATE DATABASE … ENCODING 'UTF8').")
    }

    @Test("a wrong password, an unreachable port and a malformed URL are each one sentence naming the URL without its password")
    func connectionErrors() throws {
        let cluster = try Self.cluster
        let secret = "hunter2secret"
        let port = cluster.port
        let closed = try ReservedPort()
        let database = "nodb"
        let cases: [(url: String, shown: String, says: String)] = [
            ("postgres://rewind:\(secret)@127.0.0.1:\(port)/\(database)", "postgres://rewind@127.0.0.1:\(port)/\(database)", "password authentication failed"),
            ("postgres://rewind:\(secret)@127.0.0.1:\(closed.port)/\(database)", "postgres://rewind@127.0.0.1:\(closed.port)/\(database)", "Connection refused"),
            ("postgresql://rewind@127.0.0.1:\(port)/\(database)?sslmode=disable&password=\(secret)",
             "postgresql://rewind@127.0.0.1:\(port)/\(database)?sslmode=disable&password=…", "password authentication failed"),
            ("postgres://rewind:\(secret)@/\(database)", "postgres://rewind@/\(database)", "the URL names no host"),
            ("postgres://rewind:\(secret)@127.0.0.1:\(port)", "postgres://rewind@127.0.0.1:\(port)", "the URL names no database"),
            ("postgres://rewind:hunt@er2secret@127.0.0.1:\(port)/\(database)", "postgres://rewind@127.0.0.1:\(port)/\(database)", "write it as %40"),
            ("postgres://rewind:\(secret)@127.0.0.1:port/\(database)", "'postgres://rewind@127.0.0.1:port/\(database)'", "is not a postgres://USER@HOST:PORT/DB URL"),
        ]
        for (url, shown, says) in cases {
            var errors: [LogError?] = []
            do {
                let store = try PostgresLogStore(url: url)
                errors.append(#expect(throws: LogError.self, "\(url)") { try store.openReader() })
                errors.append(#expect(throws: LogError.self, "\(url)") { try store.openWriter() })
            } catch {
                // A URL that does not parse is refused as the store is made.
                errors.append(error)
            }
            for error in errors {
                #expect(error?.kind == .unreachable, "\(url)")
                let sentence = error?.description ?? ""
                #expect(isOneSentence(sentence), "\(sentence)")
                #expect(sentence.contains(shown), "\(sentence)")
                #expect(sentence.contains(says), "\(sentence)")
                #expect(!sentence.contains("secret"), "\(sentence)")
            }
        }
    }

    #if os(Linux)
    @Test("the writer's thread shows under its own name (Linux takes at most 15 characters), as per-thread profiles read it")
    func writerThreadName() throws {
        let url = try Self.cluster.createDatabase(prefix: "thread_name")
        defer { try? Self.cluster.dropDatabase(url) }
        let writer = try PostgresLogWriter(url: url)
        defer { writer.close() }
        // A call returns once the thread ran it, so the thread has named itself by then.
        _ = try writer.sessionID(uuid: "none")
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(names.contains("rewind-pgwriter"), "\(names)")
    }
    #endif

    @Test("an event's fields read back as written through the binary COPY: tabs, newlines, backslashes, quotes, accents, emoji, U+0000 in an action type, no cause, extreme numbers")
    func binaryCopyRoundTrip() throws {
        let url = try Self.cluster.createDatabase(prefix: "pg_binary")
        defer { try? Self.cluster.dropDatabase(url) }
        let store = try PostgresLogStore(url: url)
        let writer = try store.openWriter()
        defer { writer.close() }
        let id = try writer.openSession(uuid: "binary", app: "A", startedAt: Events.start)
        var events = Events.events(session: id, seqs: 0..<2)
        let awkward = "tab\tnewline\ncarriage\rback\\slash \"quote\" 'single' Crème 🍮 \\N \\."
        var odd = Events.event(session: id, seq: 2, type: "odd\u{0}type", text: awkward)
        odd.cause = nil
        odd.coalesced = true
        odd.durationNs = .max
        odd.hash = .max
        odd.at = Date(timeIntervalSince1970: 1_763_700_000.123_456)
        var long = Events.event(session: id, seq: 3, text: "milk and eggs and bread for the whole week ahead")
        long.cause = 1
        events += [odd, long]
        try appendCommitted(writer, events)
        let read = try store.openReader().events(session: id)
        #expect(read.count == 4)
        let back = try #require(read.first { $0.seq == 2 })
        #expect(back.action == odd.action)
        #expect(back.actionType == "odd\u{FFFD}type")
        #expect(back.patch == odd.patch && back.inverse == odd.inverse)
        #expect(back.cause == nil && back.coalesced && back.durationNs == .max && back.hash == .max)
        #expect(back.at == odd.at)
        #expect(read.first { $0.seq == 3 }?.cause == 1)
        // Both kinds of search input arrived: words for the short action, lexemes for the long one.
        #expect(try Self.cluster.psql("SELECT seq, words IS NULL, lexemes IS NULL FROM events ORDER BY seq", database: url)
                == "0|f|t\n1|f|t\n2|f|t\n3|t|f")
        #expect(try store.openReader().events(session: id, text: "whole week").map(\.seq) == [3])
        #expect(try store.openReader().events(session: id, text: "creme").map(\.seq) == [2])
    }

    @Test("text search goes through the GIN index on the action's lexemes, not a scan")
    func textSearchUsesTheIndex() throws {
        let (url, _, _) = try databaseWithSession()
        defer { try? Self.cluster.dropDatabase(url) }
        let plan = try Self.cluster.psql("""
            SET enable_seqscan = off;
            EXPLAIN SELECT e.seq FROM events e WHERE \(TextQuery.postgresLexemeDocument(alias: "e")) @@ to_tsquery('simple', '''milk''');
            """, database: url)
        // Each range's partition has the index (PostgreSQL names it after the partition).
        #expect(plan.contains("Bitmap Index Scan on events_p0_"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }
}
