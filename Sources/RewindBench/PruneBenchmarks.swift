import Foundation
import RewindLog
import RewindPostgres
import RewindSupport

/// The "prune-postgres" group (issue 43): `rewind prune` on a team database of 10 million events,
/// the layout before partitions (schema 2: every row deleted one by one) against schema 3 (a
/// range whose sessions all go is dropped whole), in the same run on one private cluster.
///
/// Each database holds the same sessions: `sessions` of `events / sessions` small events each
/// (a ~30-byte action, one-operation patches, a keyframe at seq 0), loaded with SQL (the seq
/// triggers off for the load, as a restore would), then checkpointed. The oldest 90 % of the
/// sessions are pruned: schema 2 as its release did (a lease check per session, then one DELETE
/// per table in one transaction), schema 3 through the store's own writer. For each: the time,
/// the WAL written, and the size of the event tables after against before (dead rows stay in a
/// table that rows were deleted from until a VACUUM, and its files keep their size after one).
///
/// `REWIND_BENCH_PRUNE_EVENTS` sets a smaller load (the default is the 10 million).
enum PruneBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "prune-postgres", run: run) }

    static let sessions = 2_000
    /// Sessions a range of schema 3 holds here: small next to what a prune keeps, as ranges
    /// are meant to be (one range at most straddles the cutoff and is deleted row by row).
    static let partitionSessions = 100
    static var events: Int {
        ProcessInfo.processInfo.environment["REWIND_BENCH_PRUNE_EVENTS"].flatMap { Int($0) } ?? 10_000_000
    }

    struct Figures {
        var seconds: Double
        var walBytes: Double
        var sizeBefore: Double
        var sizeAfter: Double
        var pruned: Int
    }

    static func run() throws -> [BenchResult] {
        guard let cluster = try BenchPostgresCluster.startOrSkip("prune-postgres") else { return [] }
        defer { cluster.stop() }
        let total = events
        let perSession = max(2, total / sessions)
        let old = try measure(cluster, schema: 2, perSession: perSession)
        let new = try measure(cluster, schema: 3, perSession: perSession)
        guard old.pruned == new.pruned else {
            throw BenchFailure("the two layouts pruned \(old.pruned) and \(new.pruned) sessions")
        }
        let label = "\((sessions * perSession).formatted()) events, \(old.pruned) of \(sessions) sessions"
        func ratio(_ value: Double, _ baseline: Double) -> Double { (value / baseline * 10_000).rounded() / 10_000 }
        func round(_ value: Double, _ places: Double = 1) -> Double { (value * places).rounded() / places }
        let mib = 1_048_576.0
        return [
            BenchResult(name: "prune-postgres/time", value: round(new.seconds, 1000), unit: "s", baseline: round(old.seconds, 1000),
                        ratio: ratio(new.seconds, old.seconds), note: "\(label); baseline: schema 2, row by row"),
            BenchResult(name: "prune-postgres/wal", value: round(new.walBytes / mib, 10), unit: "MiB", baseline: round(old.walBytes / mib, 10),
                        ratio: ratio(new.walBytes, old.walBytes), note: "WAL written by the prune"),
            BenchResult(name: "prune-postgres/size-after", value: round(new.sizeAfter / new.sizeBefore * 100, 10), unit: "%",
                        baseline: round(old.sizeAfter / old.sizeBefore * 100, 10), ratio: nil,
                        note: "event tables after / before (\(Int(old.sizeBefore / mib)) MiB before)"),
        ]
    }

    /// Loads a database of layout `schema`, prunes its oldest 90 % of sessions and measures it.
    static func measure(_ cluster: BenchPostgresCluster, schema: Int, perSession: Int) throws -> Figures {
        let database = try cluster.createDatabase("prune\(schema)")
        defer { cluster.dropDatabase(database) }
        if schema >= 3 {
            try cluster.connect().execute("ALTER DATABASE \(database) SET rewind.partition_sessions = '\(partitionSessions)'")
        }
        let connection = try cluster.connect(database: database)
        try PostgresSchema.migrate(connection, through: schema)
        try load(connection, perSession: perSession)
        try cluster.checkpoint()
        let eventTables = schema >= 3
            ? "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events') UNION ALL SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('keyframes')"
            : "SELECT pg_total_relation_size('events') UNION ALL SELECT pg_total_relation_size('keyframes')"
        func size() throws -> Double {
            let text = try connection.scalarText("SELECT sum(size) FROM (\(eventTables)) sizes(size)") ?? "0"
            return Double(text) ?? .nan
        }
        let before = try size()
        let cutoff = sessions * 9 / 10
        let ids = Array(Int64(1)...Int64(cutoff))
        let walStart = try connection.scalarText("SELECT pg_current_wal_insert_lsn()") ?? "0/0"
        let clock = ContinuousClock()
        var pruned = 0
        let elapsed = try clock.measure {
            if schema >= 3 {
                let writer = try PostgresLogStore(url: cluster.url(database: database)).openWriter()
                defer { writer.close() }
                pruned = try writer.prune(sessions: ids).count
            } else {
                pruned = try pruneAsSchema2(connection, ids: ids)
            }
        }
        let wal = Double(try connection.scalarText("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '\(walStart)')") ?? "") ?? .nan
        let after = try size()
        return Figures(seconds: elapsed.seconds, walBytes: wal, sizeBefore: before, sizeAfter: after, pruned: pruned)
    }

    /// `sessions` sessions of `perSession` events each, with SQL: the sessions (which make their
    /// ranges in schema 3), then each table's rows with triggers off, as a restore loads them.
    static func load(_ connection: PGConnection, perSession: Int) throws {
        try connection.execute("""
            INSERT INTO sessions(uuid, app, started_at, ended_at, meta)
                SELECT 'bench-' || g, 'Bench', 1700000000 + g * 60, 1700000000 + g * 60 + 50, '{}' FROM generate_series(1, \(sessions)) g;
            SET session_replication_role = replica;
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash)
                SELECT s, n, 1700000000 + s * 60 + n * 0.001, 'tick', '{"type":"tick","n":' || n || '}',
                       '[{"op":"replace","path":"/n","value":' || n || '}]', '[{"op":"replace","path":"/n","value":' || (n - 1) || '}]', s * 1000003 + n
                FROM generate_series(1, \(sessions)) s, generate_series(0, \(perSession - 1)) n;
            INSERT INTO keyframes(session_id, seq, state) SELECT g, 0, '{"n":0}' FROM generate_series(1, \(sessions)) g;
            SET session_replication_role = origin;
            ANALYZE;
            """)
    }

    /// Prune as the release before partitions ran it: in one transaction, each session checked
    /// and its lease taken, then one DELETE per table.
    static func pruneAsSchema2(_ connection: PGConnection, ids: [Int64]) throws -> Int {
        try connection.execute("BEGIN")
        try connection.execute("SET LOCAL rewind.pruning = 'on'")
        var removable: [Int64] = []
        for id in ids {
            guard try connection.scalarText("SELECT count(*) FROM sessions WHERE id = ?1", [String(id)]) == "1" else { continue }
            if try connection.scalarText("SELECT pg_try_advisory_xact_lock(?1)", [String(id)]) == "t" { removable.append(id) }
        }
        let list = "{" + removable.map(String.init).joined(separator: ",") + "}"
        for table in ["non_finite", "send_sites", "deliveries", "session_tags", "keyframes", "events"] {
            _ = try connection.scalarText("DELETE FROM \(table) WHERE session_id = ANY(CAST(?1 AS bigint[]))", [list])
        }
        _ = try connection.scalarText("DELETE FROM sessions WHERE id = ANY(CAST(?1 AS bigint[]))", [list])
        try connection.execute("COMMIT")
        return removable.count
    }
}
