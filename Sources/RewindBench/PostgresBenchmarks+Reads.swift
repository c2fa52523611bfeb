import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindReplay
import RewindSupport

extension PostgresBenchmarks {
    /// What a reader waits for, on the rows `rewind serve` stored (this build's layout: a
    /// keyframe every 16 KiB of patches, the events' text compressed in their rows) against the
    /// same events in the previous release's layout (schema 3, a keyframe with every event of
    /// this workload, rows uncompressed), measured alternately: issue 42 asks that every read be
    /// answered as fast as before.
    static func reads(_ cluster: BenchPostgresCluster, served: String, session: Int64, eventsFile: String,
                      previousKeyframesFile: String) throws -> [BenchResult] {
        let (older, _) = try olderDatabase(cluster, "bench_reads_schema3", through: 3, session: String(session))
        defer { cluster.dropDatabase(older) }
        try cluster.psql(#"\copy events(\#(ProcessRoles.eventColumns)) FROM '\#(eventsFile)'"#, database: older)
        try cluster.psql(#"\copy keyframes(\#(ProcessRoles.keyframeColumns)) FROM '\#(previousKeyframesFile)'"#, database: older)
        // Both as autovacuum leaves a table in time (statistics, the visibility map): the served
        // database was written for seconds and may have had it, the copy not.
        try cluster.psql("VACUUM ANALYZE", database: older)
        try cluster.psql("VACUUM ANALYZE", database: served)
        // The served database's session has the same id in the copies (the first of each).
        let servedSession = Int64(try cluster.connect(database: served).scalarText("SELECT id FROM sessions") ?? "") ?? -1

        struct Side {
            let reader: LogReader
            let timeline: Timeline
            let session: Int64
            /// This build's layout (`served`), not the previous release's.
            let current: Bool
        }
        func side(_ database: String, session: Int64, current: Bool) throws -> Side {
            let reader = try LogReader(connection: cluster.connect(database: database), location: database)
            return Side(reader: reader, timeline: try Timeline(reader: reader, session: session, options: .uncached), session: session,
                        current: current)
        }
        let sides = [try side(served, session: servedSession, current: true), try side(older, session: session, current: false)]
        var random = SplitMix64(seed: 42)
        let seqs = (0..<200).map { _ in Int64.random(in: 0..<Int64(ingestEvents), using: &random) }
        let starts = (0..<50).map { _ in Int64.random(in: 0..<Int64(ingestEvents - 200), using: &random) }

        // Each read on each side, alternately: a round untimed (the pages read once), then five
        // timed; the median of the five.
        typealias Read = (name: String, unit: String, perCall: Int, run: (Side) throws -> Void)
        let reads: [Read] = [
            // This build rebuilds from the keyframe nearest (a probe for both neighbours, then
            // the walk, the keyframe in its first row); the previous release asked for each
            // neighbour, then read the keyframe, which its layout had at every seq here.
            ("state at a seq", "ms", seqs.count, { side in
                if side.current {
                    for seq in seqs { _ = try side.timeline.state(at: seq) }
                } else {
                    for seq in seqs {
                        guard let before = try side.reader.keyframeSeq(atOrBefore: seq, session: side.session),
                              try side.reader.keyframeSeq(atOrAfter: seq, session: side.session) == seq, before == seq,
                              try side.reader.keyframeState(session: side.session, seq: before) != nil else {
                            throw BenchFailure("the previous release's layout has no keyframe at seq \(seq)")
                        }
                    }
                } }),
            ("100 events from a seq", "ms", starts.count, { side in
                for start in starts { _ = try side.reader.events(session: side.session, from: start, limit: 100) } }),
            ("full-text, 100 hits from a seq", "ms", starts.count, { side in
                for start in starts { _ = try side.reader.events(session: side.session, from: start, text: "bench set", limit: 100) } }),
            ("blame /count, whole session", "ms", 1, { side in
                _ = try side.timeline.blame(path: JSONPointer("/count")) }),
            ("sessions list", "ms", 50, { side in
                for _ in 0..<50 { _ = try side.reader.sessions() } }),
        ]
        var results: [BenchResult] = []
        for read in reads {
            var times: [[Double]] = [[], []]
            for round in 0..<6 {
                for (index, side) in sides.enumerated() {
                    let start = MonotonicClock.seconds()
                    try read.run(side)
                    if round > 0 { times[index].append((MonotonicClock.seconds() - start) / Double(read.perCall) * 1e3) }
                }
            }
            let median = times.map { $0.sorted()[2] }
            func rounded(_ value: Double) -> Double { (value * 1e3).rounded() / 1e3 }
            results.append(BenchResult(name: "server-postgres/read: \(read.name)", value: rounded(median[0]), unit: read.unit,
                                       baseline: rounded(median[1]), ratio: median[0] / median[1],
                                       note: "per call, \(ingestEvents) events; baseline: the same events in the previous release's layout and keyframes\(read.name == "state at a seq" ? ", read as it read them" : ""); goal ≤ 1 (issue 42)"))
        }
        return results
    }
}
