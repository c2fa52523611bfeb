import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindSupport

/// The "server-postgres" group (issue 30): `rewind serve --db postgres://…` in processes of its
/// own on a private PostgreSQL cluster (``BenchPostgresCluster``), each client a process of its
/// own, as in "server-process":
/// - ingest through one instance against the limit, `COPY` of the very rows it stored into the
///   same table of a fresh database (``ingest(_:)``);
/// - the CPU an event costs the servers, and PostgreSQL, with one instance and with two on one
///   database (``cpu(_:instances:apps:rate:)``), paced and as fast as the acks allow;
/// - app → inspector latency at 1,000 events/s with the app on one instance and the inspector on
///   another, next to both on one (``latency(_:across:)``).
///
/// With no PostgreSQL to start (or no checkout to find scripts/pg-cluster in) the group says so
/// in one line on standard error and gives no figures; that is not a failure.
enum PostgresBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "server-postgres", run: run) }

    /// Events the ingest comparison loads, as "server-process"'s one-app ingest does.
    static let ingestEvents = 100_000
    /// The apps of the CPU comparison, each paced at `cpuRate` for `cpuEvents` events: 5,000
    /// events/s together, the rate of "server-process"'s CPU figure, below what one instance
    /// takes, so both set-ups store the same events at the same pace.
    static let cpuApps = 4
    static let cpuEvents = 15_000
    static let cpuRate = 1_250
    /// Each app's events in the unpaced comparison (as fast as the acks allow).
    static let bulkEvents = 25_000
    /// The latency runs: 15 s at 1,000 events/s (the first 1,000 are the inspector's warm-up).
    static let latencyEvents = 15_000
    static let latencyRate = 1_000

    static func run() throws -> [BenchResult] {
        _ = try ProcessServerBenchmarks.rewindBinary()
        guard let cluster = try BenchPostgresCluster.startOrSkip("server-postgres") else { return [] }
        // Stopped here on success and on a thrown failure; the script's watcher stops it if this
        // process dies first.
        defer { cluster.stop() }
        var results: [BenchResult] = []
        results += try ingest(cluster)
        results += try textIndexInput(cluster)
        // Paced: the same 5,000 events/s on one instance and spread over two; then one instance
        // at the 2,500/s each of the two carries, which tells the cost of being two from the
        // cost of a lower rate per instance (fewer events to share each wake-up and commit).
        let one = try cpu(cluster, instances: 1, apps: cpuApps, rate: cpuRate)
        let two = try cpu(cluster, instances: 2, apps: cpuApps, rate: cpuRate)
        let half = try cpu(cluster, instances: 1, apps: cpuApps / 2, rate: cpuRate)
        let bulkOne = try cpu(cluster, instances: 1, apps: cpuApps, rate: 0)
        let bulkTwo = try cpu(cluster, instances: 2, apps: cpuApps, rate: 0)
        results += cpuResults(one: one, two: two, half: half, bulkOne: bulkOne, bulkTwo: bulkTwo)
        let local = try latency(cluster, across: false)
        let across = try latency(cluster, across: true)
        results += latencyResults(local: local, across: across)
        return results
    }

    // MARK: - Ingest against COPY

    static func ingest(_ cluster: BenchPostgresCluster) throws -> [BenchResult] {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-pg-rows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let eventsFile = files.appendingPathComponent("events.copy").path
        let keyframesFile = files.appendingPathComponent("keyframes.copy").path
        let eventsWithWordsFile = files.appendingPathComponent("events-words.copy").path
        let previousKeyframesFile = files.appendingPathComponent("keyframes-previous.copy").path

        // Through rewind serve: one app streams as fast as the acks allow, as in server-process.
        let served = try cluster.createDatabase("bench_ingest_serve")
        defer { cluster.dropDatabase(served) }
        let server = try withServers(cluster, database: served, count: 1) { servers in
            try cluster.checkpoint()
            let before = (serve: servers[0].cpuSeconds(), postgres: cluster.cpuSeconds())
            let report = try Child(ProcessServerBenchmarks.bench, ["--role", "app", String(servers[0].port), String(ingestEvents), "0"]).finish()
            let seconds = report["seconds"]?.numberValue?.doubleValue ?? .nan
            return (seconds: seconds, serve: servers[0].cpuSeconds() - before.serve, postgres: cluster.cpuSeconds() - before.postgres,
                    bytes: report["bytesPerEvent"]?.numberValue?.int64Value ?? 0)
        }
        let source = try cluster.connect(database: served)
        guard let session = try source.scalarText("SELECT id FROM sessions"),
              try source.scalarText("SELECT count(*) FROM events WHERE session_id = ?1", [session]) == String(ingestEvents) else {
            throw BenchFailure("rewind serve did not store the \(ingestEvents) events it acked")
        }
        let storedKeyframes = try source.scalarText("SELECT count(*) FROM keyframes") ?? "?"
        let storedBytes = Double(try source.scalarText("""
            SELECT sum(octet_length(action) + octet_length(patch) + octet_length(inverse)) FROM events
            """) ?? "") ?? .nan

        // The limit: a fresh database whose schema rewind serve made, a session of its own, and
        // the same rows (events and keyframes, exported as COPY text) loaded with COPY.
        let copied = try cluster.createDatabase("bench_ingest_copy")
        defer { cluster.dropDatabase(copied) }
        try withServers(cluster, database: copied, count: 1) { _ in }
        let target = try cluster.connect(database: copied)
        guard let id = try target.scalarText("""
            INSERT INTO sessions(uuid, app, started_at) VALUES ('\(UUID().uuidString)', 'bench', 1763700000) RETURNING id
            """) else { throw BenchFailure("no session in the COPY database") }
        try cluster.psql(#"\copy (SELECT \#(id), seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced FROM events WHERE session_id = \#(session) ORDER BY seq) TO '\#(eventsFile)'"#,
                         database: served)
        try cluster.psql(#"\copy (SELECT \#(id), seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced, words, lexemes FROM events WHERE session_id = \#(session) ORDER BY seq) TO '\#(eventsWithWordsFile)'"#,
                         database: served)
        try cluster.psql(#"\copy (SELECT \#(id), seq, state FROM keyframes WHERE session_id = \#(session) ORDER BY seq) TO '\#(keyframesFile)'"#,
                         database: served)
        // The keyframes the release before issue 42 stored: one whenever the patches since the
        // last outweighed half the state (no floor), which for this workload is every event.
        let previousKeyframes = previousReleaseKeyframes(session: id)
        try Data(previousKeyframes.rows).write(to: URL(fileURLWithPath: previousKeyframesFile))
        try cluster.checkpoint()
        let postgresBefore = cluster.cpuSeconds()
        let copy = try Child(ProcessServerBenchmarks.bench, ["--role", "copy", cluster.url(database: copied), eventsWithWordsFile, keyframesFile, "0", "words"]).finish()
        let copyPostgres = cluster.cpuSeconds() - postgresBefore
        guard try target.scalarText("SELECT count(*) FROM events") == String(ingestEvents),
              try target.scalarText("SELECT count(*) FROM keyframes") == storedKeyframes else {
            throw BenchFailure("COPY did not load the \(ingestEvents) events and \(storedKeyframes) keyframes")
        }
        let copySeconds = copy["seconds"]?.numberValue?.doubleValue ?? .nan

        // Issue 42's baseline: the same COPY into the layout of the release before this one
        // (schema 2: not partitioned, seqs checked once a row).
        let (older, olderTarget) = try olderDatabase(cluster, "bench_ingest_copy_schema2", through: 2, session: id)
        defer { cluster.dropDatabase(older) }
        try cluster.checkpoint()
        let olderBefore = cluster.cpuSeconds()
        _ = try Child(ProcessServerBenchmarks.bench, ["--role", "copy", cluster.url(database: older), eventsFile, previousKeyframesFile, "0"]).finish()
        let copySchema2Postgres = cluster.cpuSeconds() - olderBefore
        guard try olderTarget.scalarText("SELECT count(*) FROM events") == String(ingestEvents),
              try olderTarget.scalarText("SELECT count(*) FROM keyframes") == String(previousKeyframes.count) else {
            throw BenchFailure("COPY into schema 2 did not load the \(ingestEvents) events and \(previousKeyframes.count) keyframes")
        }
        let readResults = try reads(cluster, served: served, session: Int64(id) ?? -1, eventsFile: eventsFile,
                                    previousKeyframesFile: previousKeyframesFile)
        let events = Double(ingestEvents)
        let serveRate = (events / server.seconds).rounded(), copyRate = (events / copySeconds).rounded()
        func micro(_ seconds: Double) -> Double { (seconds / events * 1e7).rounded() / 10 }
        let backend = copy["backendCPU"]?.numberValue?.doubleValue ?? .nan
        return [
            BenchResult(name: "server-postgres/ingest through rewind serve", value: serveRate, unit: "events/s",
                        baseline: copyRate, ratio: serveRate / copyRate,
                        note: "baseline: COPY of the same rows; \(ingestEvents) events of \(server.bytes) B sent, \(Int(storedBytes / events)) B stored + \(storedKeyframes) keyframes; goal ≥ 0.5 × COPY"),
            BenchResult(name: "server-postgres/COPY of the same rows", value: copyRate, unit: "events/s",
                        note: "\(ingestEvents) events + \(storedKeyframes) keyframes, one COPY each, one transaction, from another process"),
            BenchResult(name: "server-postgres/serve CPU/event, ingest", value: micro(server.serve), unit: "µs",
                        note: "utime+stime of rewind serve, /proc/PID/stat"),
            BenchResult(name: "server-postgres/PG CPU/event, ingest", value: micro(server.postgres), unit: "µs",
                        baseline: micro(copyPostgres), ratio: server.postgres / copyPostgres,
                        note: "every process of the cluster; baseline: the same for COPY (its backend alone: \(micro(backend)) µs)"),
            BenchResult(name: "server-postgres/PG CPU/event, ingest vs schema 2 COPY", value: micro(server.postgres), unit: "µs",
                        baseline: micro(copySchema2Postgres), ratio: server.postgres / copySchema2Postgres,
                        note: "baseline: COPY of the same events and the previous release's \(previousKeyframes.count) keyframes into its layout; goal ≤ 0.4 × (issue 42)"),
        ] + readResults
    }

    /// A fresh database in an earlier release's layout (schema `version`) holding one session,
    /// which must get the id `session` (the rows exported carry it).
    static func olderDatabase(_ cluster: BenchPostgresCluster, _ prefix: String, through version: Int,
                              session: String) throws -> (name: String, connection: PGConnection) {
        let name = try cluster.createDatabase(prefix)
        let connection = try cluster.connect(database: name)
        try PostgresSchema.migrate(connection, through: version)
        guard try connection.scalarText("""
            INSERT INTO sessions(uuid, app, started_at) VALUES ('\(UUID().uuidString)', 'bench', 1763700000) RETURNING id
            """) == session else {
            cluster.dropDatabase(name)
            throw BenchFailure("the schema \(version) database's session is not \(session)")
        }
        return (name, connection)
    }

    /// The keyframe rows (COPY text, session `session`) of the ingest's events under the
    /// keyframe rule of the release before issue 42: ``KeyframePolicy`` with no floor of patch
    /// bytes. The events are the app role's, rebuilt here as it builds them.
    static func previousReleaseKeyframes(session: String) -> (rows: [UInt8], count: Int) {
        var source = EventSource(payloadBytes: 900, shape: .state)
        var counter = KeyframeCounter(policy: KeyframePolicy(minPatchBytes: 0))
        var keyframeStateBytes = 0
        var rows: [UInt8] = []
        var count = 0
        for seq in 0..<Int64(ingestEvents) {
            _ = source.frame(seq: seq)
            let state = source.state.serializedBytes(.compact)
            guard counter.record(patchBytes: seq == 0 ? 0 : source.lastPatchBytes, stateBytes: keyframeStateBytes) else { continue }
            keyframeStateBytes = state.count
            count += 1
            rows += Array(session.utf8) + [0x09]
            CopyText.field(seq, &rows)
            CopyText.field(state, &rows, last: true)
        }
        return (rows, count)
    }

    // MARK: - CPU per event, one instance and two

    struct CPUFigures {
        var instances: Int
        var apps: Int
        /// Each app's pace (0: as fast as the acks allow).
        var rate: Int
        var serve: Double
        var postgres: Double
        var events: Int
        /// From the first app's start to the last app's end.
        var seconds: Double

        func micro(_ cpu: Double) -> Double { (cpu / Double(events) * 1e7).rounded() / 10 }
        var servePerEvent: Double { serve / Double(events) }
        var postgresPerEvent: Double { postgres / Double(events) }
    }

    /// `apps` apps, each paced at `rate` events/s (0: unpaced) for `cpuEvents` events
    /// (`bulkEvents` unpaced), spread round-robin over `instances` servers on one fresh database;
    /// the CPU time of the servers and of PostgreSQL over the run.
    static func cpu(_ cluster: BenchPostgresCluster, instances: Int, apps count: Int, rate: Int) throws -> CPUFigures {
        let database = try cluster.createDatabase("bench_cpu_\(instances)")
        defer { cluster.dropDatabase(database) }
        let each = rate == 0 ? bulkEvents : cpuEvents
        var figures = try withServers(cluster, database: database, count: instances) { servers in
            try cluster.checkpoint()
            let before = (serve: servers.map { $0.cpuSeconds() }.reduce(0, +), postgres: cluster.cpuSeconds())
            let start = MonotonicClock.seconds()
            let apps = try (0..<count).map { index in
                try Child(ProcessServerBenchmarks.bench,
                          ["--role", "app", String(servers[index % servers.count].port), String(each), String(rate)])
            }
            for app in apps { _ = try app.finish() }
            let seconds = MonotonicClock.seconds() - start
            return CPUFigures(instances: instances, apps: count, rate: rate, serve: servers.map { $0.cpuSeconds() }.reduce(0, +) - before.serve,
                              postgres: cluster.cpuSeconds() - before.postgres, events: 0, seconds: seconds)
        }
        let stored = Int(try cluster.connect(database: database).scalarText("SELECT count(*) FROM events") ?? "") ?? 0
        guard stored == count * each else {
            throw BenchFailure("\(instances) instance(s) stored \(stored) of \(count * each) events")
        }
        figures.events = stored
        return figures
    }

    static func cpuResults(one: CPUFigures, two: CPUFigures, half: CPUFigures, bulkOne: CPUFigures, bulkTwo: CPUFigures) -> [BenchResult] {
        func pace(_ figures: CPUFigures) -> String {
            "\(figures.apps) apps × \(figures.rate)/s × \(cpuEvents) events"
        }
        let bulk = "\(cpuApps) apps × \(bulkEvents) events as fast as the acks allow"
        return [
            BenchResult(name: "server-postgres/serve CPU/ev 5,000/s, 1 inst", value: one.micro(one.serve), unit: "µs",
                        note: "\(pace(one)); utime+stime of rewind serve / events stored"),
            BenchResult(name: "server-postgres/serve CPU/ev 5,000/s, 2 inst", value: two.micro(two.serve), unit: "µs",
                        baseline: one.micro(one.serve), ratio: two.servePerEvent / one.servePerEvent,
                        note: "the same apps spread over both (2,500/s each), one database; both servers' time; baseline: 1 instance"),
            // Its ratio is the other way round: the 2 instances over this, each at this rate.
            BenchResult(name: "server-postgres/serve CPU/ev 2,500/s, 1 inst", value: half.micro(half.serve), unit: "µs",
                        baseline: two.micro(two.serve), ratio: two.servePerEvent / half.servePerEvent,
                        note: "\(pace(half)), what each of the 2 carries; baseline: the 2 instances; ratio: 2 instances / this, goal ≤ 1"),
            BenchResult(name: "server-postgres/PG CPU/ev 5,000/s, 1 inst", value: one.micro(one.postgres), unit: "µs",
                        note: "every process of the cluster"),
            BenchResult(name: "server-postgres/PG CPU/ev 5,000/s, 2 inst", value: two.micro(two.postgres), unit: "µs",
                        baseline: one.micro(one.postgres), ratio: two.postgresPerEvent / one.postgresPerEvent, note: "baseline: 1 instance"),
            BenchResult(name: "server-postgres/PG CPU/ev 2,500/s, 1 inst", value: half.micro(half.postgres), unit: "µs",
                        baseline: two.micro(two.postgres), ratio: two.postgresPerEvent / half.postgresPerEvent,
                        note: "baseline: the 2 instances at 5,000/s; ratio: 2 instances / this"),
            BenchResult(name: "server-postgres/ingest unpaced, 1 inst", value: (Double(bulkOne.events) / bulkOne.seconds).rounded(), unit: "events/s",
                        note: "\(bulk)"),
            BenchResult(name: "server-postgres/ingest unpaced, 2 inst", value: (Double(bulkTwo.events) / bulkTwo.seconds).rounded(), unit: "events/s",
                        baseline: (Double(bulkOne.events) / bulkOne.seconds).rounded(),
                        ratio: (Double(bulkTwo.events) / bulkTwo.seconds) / (Double(bulkOne.events) / bulkOne.seconds),
                        note: "the same apps spread over both; baseline: 1 instance"),
            BenchResult(name: "server-postgres/serve CPU/ev unpaced, 1 inst", value: bulkOne.micro(bulkOne.serve), unit: "µs",
                        note: "\(bulk)"),
            BenchResult(name: "server-postgres/serve CPU/ev unpaced, 2 inst", value: bulkTwo.micro(bulkTwo.serve), unit: "µs",
                        baseline: bulkOne.micro(bulkOne.serve), ratio: bulkTwo.servePerEvent / bulkOne.servePerEvent,
                        note: "both servers' time; baseline: 1 instance; goal: not above"),
            BenchResult(name: "server-postgres/PG CPU/ev unpaced, 2 inst", value: bulkTwo.micro(bulkTwo.postgres), unit: "µs",
                        baseline: bulkOne.micro(bulkOne.postgres), ratio: bulkTwo.postgresPerEvent / bulkOne.postgresPerEvent,
                        note: "baseline: 1 instance"),
        ]
    }

    // MARK: - Latency across instances

    struct LatencyFigures {
        var p50: Double
        var p99: Double
        var max: Double
        var received: Int64
        var lagged: Bool
    }

    /// An app on the first server streams stamped events at `latencyRate`; an inspector on the
    /// second (`across`) or the same server times each live event from its send.
    static func latency(_ cluster: BenchPostgresCluster, across: Bool) throws -> LatencyFigures {
        let database = try cluster.createDatabase(across ? "bench_latency_across" : "bench_latency_local")
        defer { cluster.dropDatabase(database) }
        return try withServers(cluster, database: database, count: across ? 2 : 1) { servers in
            let watcher = try Child(ProcessServerBenchmarks.bench, ["--role", "inspector", String(servers[servers.count - 1].port), String(latencyEvents)])
            try watcher.waitFor("ready")
            _ = try Child(ProcessServerBenchmarks.bench,
                          ["--role", "app", String(servers[0].port), String(latencyEvents), String(latencyRate), "1"]).finish()
            let report = try watcher.finish()
            func value(_ key: String) -> Double { ((report[key]?.numberValue?.doubleValue ?? .nan) * 100).rounded() / 100 }
            return LatencyFigures(p50: value("p50"), p99: value("p99"), max: value("max"),
                                  received: report["received"]?.numberValue?.int64Value ?? 0, lagged: report["lagged"] == true)
        }
    }

    static func latencyResults(local: LatencyFigures, across: LatencyFigures) -> [BenchResult] {
        func state(_ figures: LatencyFigures) -> String {
            "\(figures.received) of \(latencyEvents) received\(figures.lagged ? ", lagged" : "")"
        }
        let pace = "\(latencyRate) events/s × \(latencyEvents), ~1 KB"
        return [
            BenchResult(name: "server-postgres/app→inspector p50, across", value: across.p50, unit: "ms",
                        baseline: local.p50, ratio: across.p50 / local.p50, note: "\(pace); baseline: app and inspector on one instance"),
            BenchResult(name: "server-postgres/app→inspector p99, across", value: across.p99, unit: "ms",
                        baseline: local.p99, ratio: across.p99 / local.p99, note: "goal < 50 ms; \(state(across))"),
            BenchResult(name: "server-postgres/app→inspector max, across", value: across.max, unit: "ms",
                        baseline: local.max, ratio: across.max / local.max, note: "after a 1,000-event warm-up; one instance: \(state(local))"),
        ]
    }

    // MARK: - Servers

    /// Starts `count` `rewind serve --db URL` processes on `database` (the first creates the
    /// schema; the others start after it), runs `body`, and stops them (SIGTERM, then waits).
    static func withServers<T>(_ cluster: BenchPostgresCluster, database: String, count: Int,
                               _ body: ([ProcessServerBenchmarks.Server]) throws -> T) throws -> T {
        let rewind = try ProcessServerBenchmarks.rewindBinary()
        var servers: [ProcessServerBenchmarks.Server] = []
        defer { for server in servers { server.process.terminate() } }
        for _ in 0..<count {
            // The URL (with its password) in REWIND_DB, as Deploying.md says, not on the command line.
            let child = try Child(rewind, ["serve", "--port", "0"], environment: ["REWIND_DB": cluster.url(database: database)])
            let line: String
            do {
                line = try child.waitFor("/app")
            } catch {
                child.terminate()
                throw error
            }
            guard let range = line.range(of: "ws://127.0.0.1:"), let port = Int(line[range.upperBound...].prefix { $0.isNumber }) else {
                child.terminate()
                throw BenchFailure("rewind serve did not say its port: \(line)")
            }
            servers.append(ProcessServerBenchmarks.Server(process: child, port: port))
        }
        return try body(servers)
    }
}
