import Foundation
import RewindJSON

/// What the replay engine and `rewind stats` ask the log besides events: where the keyframes
/// are and how large things are. Each is one indexed query.
extension LogReader {
    /// The seq of the latest keyframe of `session` at or before `seq`.
    package func keyframeSeq(atOrBefore seq: Int64, session: Int64) throws(LogError) -> Int64? {
        try optionalInt("SELECT max(seq) FROM keyframes WHERE session_id = ?1 AND seq <= ?2", session, seq)
    }

    /// The seqs of the nearest keyframes of `session` at or before `seq` and at or after it, in
    /// one query (a rebuild's probe: one round trip to a team store, not two).
    package func keyframeSeqs(around seq: Int64, session: Int64) throws(LogError) -> (before: Int64?, after: Int64?) {
        try withStatement("""
            SELECT (SELECT max(seq) FROM keyframes WHERE session_id = ?1 AND seq <= ?2),
                   (SELECT min(seq) FROM keyframes WHERE session_id = ?1 AND seq >= ?2)
            """) { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(seq, at: 2)
            guard try statement.step() else { return (nil, nil) }
            return (statement.isNull(0) ? nil : statement.int64(0), statement.isNull(1) ? nil : statement.int64(1))
        }
    }

    /// The seq of the earliest keyframe of `session` at or after `seq`.
    package func keyframeSeq(atOrAfter seq: Int64, session: Int64) throws(LogError) -> Int64? {
        try optionalInt("SELECT min(seq) FROM keyframes WHERE session_id = ?1 AND seq >= ?2", session, seq)
    }

    /// The first seq whose recorded state differs between sessions `a` and `b` (their state
    /// hashes differ, or only one of them has that seq); `nil` when they hold the same states.
    ///
    /// Sessions of the same state hash version compare their stored hashes in one query. When
    /// the versions differ (a session recorded before version 2 and a branch made after), `b`'s
    /// states are rebuilt from its patches and hashed the way `a`'s were.
    public func firstDifference(between a: Int64, and b: Int64) throws(LogError) -> Int64? {
        let version = try session(id: a).hashVersion
        guard try session(id: b).hashVersion == version else {
            return try firstDifferenceRehashing(a, version: version, b)
        }
        if let seq = try optionalInt("""
            SELECT min(x.seq) FROM events x JOIN events y ON y.session_id = ?2 AND y.seq = x.seq
            WHERE x.session_id = ?1 AND x.hash != y.hash
            """, a, b) {
            return seq
        }
        let lastA = try lastSeq(session: a), lastB = try lastSeq(session: b)
        guard lastA != lastB else { return nil }
        return min(lastA ?? -1, lastB ?? -1) + 1
    }

    private func firstDifferenceRehashing(_ a: Int64, version: StateHashVersion, _ b: Int64) throws(LogError) -> Int64? {
        var hashesA: [UInt64] = []
        try walkEvents(session: a, from: 0, to: .max) { row throws(LogError) in
            hashesA.append(row.hash)
            return true
        }
        var state: JSONValue = .null
        var hash: UInt64 = 0
        var next: Int64 = 0
        var found: Int64?
        try walkEvents(session: b, from: 0, to: .max, includeKeyframes: true) { row throws(LogError) in
            if row.seq == 0 {
                guard let keyframe = try row.keyframe() else {
                    throw LogError(kind: .invalidEvent(session: b, seq: 0), message: "no keyframe holds the initial state", path: path)
                }
                state = keyframe.state
                hash = state.hash(version)
            } else {
                let patchJSON = try row.patch()
                if case .array(let operations) = patchJSON, operations.isEmpty {
                    // A coalesced event: the state, and so its hash, stay as they were.
                } else {
                    do {
                        try state.apply(try JSONPatch(json: patchJSON))
                    } catch {
                        throw LogError(kind: .invalidEvent(session: b, seq: row.seq), message: "its patch does not apply: \(error)", path: path)
                    }
                    hash = state.hash(version)
                }
            }
            guard row.seq < Int64(hashesA.count), hash == hashesA[Int(row.seq)] else {
                found = row.seq
                return false
            }
            next = row.seq + 1
            return true
        }
        if let found { return found }
        return next < Int64(hashesA.count) ? next : nil
    }

    /// The last stored seq of `session`, `nil` when it has no events.
    package func lastSeq(session: Int64) throws(LogError) -> Int64? {
        try optionalInt("SELECT max(seq) FROM events WHERE session_id = ?1", session)
    }

    /// `true` when a session with id `id` exists (one primary-key probe).
    package func sessionExists(id: Int64) throws(LogError) -> Bool {
        try optionalInt("SELECT 1 FROM sessions WHERE id = ?1", id) != nil
    }

    /// The keyframe stored at exactly `seq`, with the bytes of its stored text.
    package func keyframeState(session: Int64, seq: Int64) throws(LogError) -> (state: JSONValue, bytes: Int)? {
        try withStatement("SELECT state FROM keyframes WHERE session_id = ?1 AND seq = ?2") { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(seq, at: 2)
            guard try statement.step() else { return nil }
            let bytes = statement.withBytes(0) { $0.count }
            return (try RowDecoder.json(statement, 0, column: "keyframes.state", path: path), bytes)
        }
    }

    /// The smallest seq of `session` that has a keyframe but no event (only a damaged file has one).
    package func firstKeyframeWithoutEvent(session: Int64) throws(LogError) -> Int64? {
        try optionalInt("""
            SELECT min(k.seq) FROM keyframes k
            WHERE k.session_id = ?1
              AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = k.session_id AND e.seq = k.seq)
            """, session)
    }

    /// Every keyframe of `session` as (seq, bytes of its stored text), ascending.
    package func keyframeSizes(session: Int64) throws(LogError) -> [(seq: Int64, bytes: Int64)] {
        try withStatement("SELECT seq, \(byteLength("state")) FROM keyframes WHERE session_id = ?1 ORDER BY seq") { statement throws(LogError) in
            try statement.bind(session, at: 1)
            var sizes: [(seq: Int64, bytes: Int64)] = []
            while try statement.step() { sizes.append((statement.int64(0), statement.int64(1))) }
            return sizes
        }
    }

    /// Bytes of JSON text `session` stores: its events' action, patch and inverse, and its keyframes.
    package func payloadBytes(session: Int64) throws(LogError) -> (events: Int64, keyframes: Int64) {
        let events = try optionalInt("""
            SELECT sum(\(byteLength("action")) + \(byteLength("patch")) + \(byteLength("inverse")))
            FROM events WHERE session_id = ?1
            """, session) ?? 0
        let keyframes = try optionalInt("SELECT sum(\(byteLength("state"))) FROM keyframes WHERE session_id = ?1", session) ?? 0
        return (events, keyframes)
    }

    private func optionalInt(_ sql: String, _ parameters: Int64...) throws(LogError) -> Int64? {
        try withStatement(sql) { statement throws(LogError) in
            for (index, value) in parameters.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }
}
