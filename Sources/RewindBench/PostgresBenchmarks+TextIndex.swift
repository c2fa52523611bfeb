import Foundation
import RewindLog
import RewindPostgres

extension PostgresBenchmarks {
    static let textIndexEvents = 30_000

    /// What the text index's input costs PostgreSQL (issue 42, schema 6), in one run: the events
    /// `rewind serve` stored, copied again into two fresh databases of this layout, once with
    /// every action's lexemes (`to_tsvector`'s, as the writer makes them) and once with its words
    /// for PostgreSQL to parse (schema 5's input), alternated twice; the median CPU of every
    /// cluster process an event, each way. For both shapes of the app's kilobyte: in the state (an
    /// action of five words) and in the action (a note of about 110 words). The writer's
    /// `TextQuery.postgresLexemeMinimumWords` comes from these two.
    static func textIndexInput(_ cluster: BenchPostgresCluster) throws -> [BenchResult] {
        var results: [BenchResult] = []
        for shape in [EventSource.Shape.state, .action] {
            let files = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-pg-text-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: files) }
            let served = try cluster.createDatabase("bench_text_serve")
            defer { cluster.dropDatabase(served) }
            try withServers(cluster, database: served, count: 1) { servers in
                _ = try Child(ProcessServerBenchmarks.bench, ["--role", "app", String(servers[0].port), String(textIndexEvents), "0", "0", shape.rawValue]).finish()
            }
            let source = try cluster.connect(database: served)
            guard let session = try source.scalarText("SELECT id FROM sessions"),
                  try source.scalarText("SELECT count(*) FROM events") == String(textIndexEvents) else {
                throw BenchFailure("rewind serve did not store the \(textIndexEvents) events")
            }
            let keyframes = files.appendingPathComponent("keyframes.copy").path
            let asStored = files.appendingPathComponent("lexemes.copy").path
            let asWords = files.appendingPathComponent("words.copy").path
            let columns = "seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced"
            let wordsOfAction = TextQuery.postgresDocumentFromAction("action")
            try cluster.psql(#"""
                \copy (SELECT 1, \#(columns), NULL, to_tsvector('simple', \#(wordsOfAction)) FROM events WHERE session_id = \#(session) ORDER BY seq) TO '\#(asStored)'
                """#, database: served)
            try cluster.psql(#"""
                \copy (SELECT 1, \#(columns), \#(wordsOfAction), NULL FROM events WHERE session_id = \#(session) ORDER BY seq) TO '\#(asWords)'
                """#, database: served)
            try cluster.psql(#"\copy (SELECT 1, seq, state FROM keyframes WHERE session_id = \#(session) ORDER BY seq) TO '\#(keyframes)'"#,
                             database: served)
            var cpu: [String: [Double]] = [:]
            for round in 0..<4 {
                let file = round % 2 == 0 ? asStored : asWords
                let name = try cluster.createDatabase("bench_text_copy")
                defer { cluster.dropDatabase(name) }
                try withServers(cluster, database: name, count: 1) { _ in }
                let target = try cluster.connect(database: name)
                guard try target.scalarText("INSERT INTO sessions(uuid, app, started_at) VALUES ('\(UUID().uuidString)', 'bench', 1763700000) RETURNING id") == "1" else {
                    throw BenchFailure("the copy's session is not 1")
                }
                try cluster.checkpoint()
                let before = cluster.cpuSeconds()
                _ = try Child(ProcessServerBenchmarks.bench, ["--role", "copy", cluster.url(database: name), file, keyframes, "500", "words"]).finish()
                cpu[file, default: []].append(cluster.cpuSeconds() - before)
                guard try target.scalarText("SELECT count(*) FROM events") == String(textIndexEvents) else {
                    throw BenchFailure("COPY did not load the \(textIndexEvents) events")
                }
            }
            func micro(_ samples: [Double]) -> Double { (samples.sorted()[samples.count / 2] / Double(textIndexEvents) * 1e7).rounded() / 10 }
            let lexemes = micro(cpu[asStored] ?? []), words = micro(cpu[asWords] ?? [])
            let what = shape == .state ? "five-word actions" : "~110-word actions"
            results.append(BenchResult(name: "server-postgres/PG CPU/event, text index from lexemes, \(what)", value: lexemes, unit: "µs",
                                       baseline: words, ratio: lexemes / words,
                                       note: "\(textIndexEvents) events as rewind serve stored them, COPY in windows of 500, each action's lexemes; baseline: its words for PostgreSQL to parse (schema 5); medians of two each"))
        }
        return results
    }
}
