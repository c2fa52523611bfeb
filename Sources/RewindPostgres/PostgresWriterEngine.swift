import Foundation
import RewindJSON
import RewindLog

/// What the writer thread owns: the connection, the leased sessions and their next seqs.
/// Touched only by the writer thread (and its init, before the thread starts).
final class PostgresWriterEngine: @unchecked Sendable {
    let connection: PGConnection
    /// The sessions whose advisory lock this connection holds.
    private(set) var leased: Set<Int64> = []
    /// The next seq of each leased session, as committed.
    private var nextSeq: [Int64: Int64] = [:]
    /// Sessions whose lease was lost (the database restarted and another instance took them).
    private var lost: Set<Int64> = []

    /// The channel each commit announces its seq ranges on.
    static let eventsChannel = "rewind_events"

    init(connection: PGConnection) {
        self.connection = connection
        connection.onReconnect = { [unowned self] connection throws(LogError) in
            // The server forgot this connection's advisory locks: take each back, or give the
            // session up when another instance took it meanwhile.
            for session in self.leased {
                let again = try connection.scalarText("SELECT pg_try_advisory_lock(?1)", [String(session)]) == "t"
                if !again {
                    self.leased.remove(session)
                    self.nextSeq[session] = nil
                    self.lost.insert(session)
                }
            }
            // Only committed rows count: what a lost transaction held is gone.
            for session in self.leased { self.nextSeq[session] = nil }
        }
    }

    func close() {
        // Ending the connection frees every lease.
        for session in leased { _ = try? connection.scalarText("SELECT pg_advisory_unlock(?1)", [String(session)]) }
        leased = []
    }

    // MARK: Sessions

    func openSession(uuid: String, app: String, startedAt: Date, meta: JSONValue, replayOf: String?, run: String?,
                     hashVersion: StateHashVersion, owner: SessionOwner?) throws(LogError) -> Int64 {
        let metaText = meta.objectValue != nil ? meta.serialized(.compact) : "{}"
        // Its range's partitions first, outside the session's transaction (PostgresSchema.version3).
        try connection.execute("SELECT rewind_prepare_partitions()")
        // The session and its tags in one transaction, before the lease: whoever inserts the row
        // indexes its tags, even when another instance wins the race for the lease.
        try connection.execute("BEGIN")
        do throws(LogError) {
            let inserted = try connection.scalarText("""
                INSERT INTO sessions(uuid, app, started_at, meta, replay_of, run, hash_version, owner, secret) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                ON CONFLICT(uuid) DO NOTHING RETURNING id
                """, [uuid, app, "\(startedAt.timeIntervalSince1970)", metaText, replayOf, run, String(hashVersion.rawValue),
                      owner?.digest, owner?.secret])
            if let inserted {
                for tag in SessionTags.from(meta: meta) {
                    _ = try connection.scalarText("INSERT INTO session_tags(session_id, tag) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                                                  [inserted, tag])
                }
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        let result = try connection.run("SELECT id, hash_version, run, owner FROM sessions WHERE uuid = ?1", [uuid])
        defer { PQclearResult(result) }
        guard let row = PGRowReader(result), row.count > 0 else {
            throw LogError(kind: .unknownSession(uuid), message: "it vanished right after it was recorded", path: connection.location)
        }
        let id = row.int64(0, 0)
        // Whose it is, first, before the lease: a hello that does not prove it neither learns
        // more of the session nor takes it from the instance its app streams to.
        if let stored = row.text(0, 3) {
            guard let owner, owner.matches(stored) else {
                throw LogError(kind: .notOwner(session: uuid), message: "", path: connection.location)
            }
        } else if let owner {
            _ = try connection.scalarText("UPDATE sessions SET owner = ?2, secret = coalesce(secret, ?3) WHERE id = ?1 AND owner IS NULL RETURNING id",
                                          [String(id), owner.digest, owner.secret])
        }
        guard row.int64(0, 1) == Int64(hashVersion.rawValue) else {
            throw LogError(kind: .hashVersionMismatch(session: uuid, stored: Int(row.int64(0, 1)), requested: hashVersion.rawValue),
                           message: "", path: connection.location)
        }
        let storedRun = row.text(0, 2)
        if let run, run != storedRun {
            throw LogError(kind: .runMismatch(session: uuid, stored: storedRun, requested: run), message: "", path: connection.location)
        }
        try lease(id, name: uuid)
        return id
    }

    /// Takes the session's lease for this connection (a no-op when held).
    private func lease(_ id: Int64, name: String) throws(LogError) {
        guard !leased.contains(id) else { return }
        guard try connection.scalarText("SELECT pg_try_advisory_lock(?1)", [String(id)]) == "t" else {
            throw LogError(kind: .sessionLeased(session: name), message: "", path: connection.location)
        }
        leased.insert(id)
        lost.remove(id)
        nextSeq[id] = nil
    }

    func release(session: Int64) {
        guard leased.contains(session) else { return }
        _ = try? connection.scalarText("SELECT pg_advisory_unlock(?1)", [String(session)])
        leased.remove(session)
        nextSeq[session] = nil
    }

    func sessionID(uuid: String) throws(LogError) -> Int64? {
        try connection.scalarText("SELECT id FROM sessions WHERE uuid = ?1", [uuid]).flatMap { Int64($0) }
    }

    /// The seq `session` expects next; the session must be leased here.
    func expectedSeq(session: Int64) throws(LogError) -> Int64 {
        try connection.ensureConnected()
        if let next = nextSeq[session] { return next }
        if !leased.contains(session) {
            if lost.contains(session) {
                throw LogError(kind: .sessionLeased(session: String(session)), message: "its lease was lost while the database was away",
                               path: connection.location)
            }
            guard try sessionID(id: session) else {
                throw LogError(kind: .unknownSession(String(session)), message: "", path: connection.location)
            }
            try lease(session, name: String(session))
        }
        let next = Int64(try connection.scalarText("SELECT coalesce(max(seq) + 1, 0) FROM events WHERE session_id = ?1", [String(session)]) ?? "0") ?? 0
        nextSeq[session] = next
        return next
    }

    private func sessionID(id: Int64) throws(LogError) -> Bool {
        try connection.scalarText("SELECT count(*) FROM sessions WHERE id = ?1", [String(id)]) == "1"
    }

    func endSession(id: Int64, at endedAt: Date) throws(LogError) {
        let changed = try connection.scalarText("UPDATE sessions SET ended_at = ?2 WHERE id = ?1 RETURNING id",
                                                [String(id), "\(endedAt.timeIntervalSince1970)"])
        guard changed != nil else {
            throw LogError(kind: .unknownSession(String(id)), message: "", path: connection.location)
        }
    }

    // MARK: Appending

    /// Validates each batch, writes the valid ones in one transaction and completes them all.
    func write(_ batches: [PostgresLogWriter.PendingAppend]) {
        var accepted: [PostgresLogWriter.PendingAppend] = []
        var heads: [Int64: Int64] = [:]
        for batch in batches {
            do throws(LogError) {
                let batchHeads = try validate(batch.events, after: heads)
                for (session, next) in batchHeads { heads[session] = next }
                accepted.append(batch)
            } catch {
                batch.completion?(.failure(error))
            }
        }
        guard !accepted.isEmpty else { return }
        do throws(LogError) {
            try writeTransaction(accepted.flatMap(\.events))
            for (session, next) in heads { nextSeq[session] = next }
            for batch in accepted { batch.completion?(.success(())) }
        } catch {
            // What the window held is not stored: the next seqs are read again from the
            // database (and the lease checked) before these sessions take another batch.
            for session in heads.keys { nextSeq[session] = nil }
            if error.isUnreachable || accepted.count == 1 {
                for batch in accepted { batch.completion?(.failure(error)) }
                return
            }
            // One batch may be at fault (the validation passed, so rarely): each on its own, so
            // a bad one never takes another caller's batch down.
            for batch in accepted { write([batch]) }
        }
    }

    /// Checks that each event continues its session (given the heads of the batches before it
    /// in this window); returns the heads after the batch.
    private func validate(_ events: [EncodedEvent], after heads: [Int64: Int64]) throws(LogError) -> [Int64: Int64] {
        var mine: [Int64: Int64] = [:]
        for event in events {
            let expected: Int64
            if let next = mine[event.sessionID] ?? heads[event.sessionID] {
                expected = next
            } else {
                expected = try expectedSeq(session: event.sessionID)
            }
            guard event.seq == expected else {
                throw LogError(kind: .seqOutOfOrder(session: event.sessionID, expected: expected, found: event.seq),
                               message: "", path: connection.location)
            }
            mine[event.sessionID] = expected + 1
        }
        return mine
    }

    private func writeTransaction(_ events: [EncodedEvent]) throws(LogError) {
        try connection.execute("BEGIN")
        do throws(LogError) {
            // BEGIN may have reconnected (the database restarted), and a lease lost with the old
            // connection that another instance took: nothing of its session is written here.
            if let lost = events.first(where: { !leased.contains($0.sessionID) }) {
                throw LogError(kind: .sessionLeased(session: String(lost.sessionID)), message: "its lease was lost while the database was away",
                               path: connection.location)
            }
            // In COPY's binary format: PostgreSQL neither parses nor unescapes the rows' text.
            try connection.copy(into: "events(session_id, seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced, words, lexemes)",
                                binary: true) { buffer in
                for event in events {
                    CopyBinary.row(fields: 13, &buffer)
                    CopyBinary.field(event.sessionID, &buffer)
                    CopyBinary.field(event.seq, &buffer)
                    CopyBinary.field(event.at, &buffer)
                    CopyBinary.text(Array(event.actionType.utf8), &buffer)
                    CopyBinary.text(event.action, &buffer)
                    CopyBinary.text(event.patch, &buffer)
                    CopyBinary.text(event.inverse, &buffer)
                    CopyBinary.field(event.hash, &buffer)
                    CopyBinary.field(event.durationNs, &buffer)
                    if let cause = event.cause { CopyBinary.field(cause, &buffer) } else { CopyBinary.null(&buffer) }
                    CopyBinary.field(Int32(event.coalesced ? 1 : 0), &buffer)
                    // What the text index takes, made here rather than by the database: the
                    // action's lexemes (schema 6), or its words where they are not made (schema 5).
                    if let lexemes = TextQuery.postgresLexemes(event.action) {
                        CopyBinary.null(&buffer)
                        CopyBinary.raw(lexemes, &buffer)
                    } else {
                        CopyBinary.text(TextQuery.postgresWords(event.action), &buffer)
                        CopyBinary.null(&buffer)
                    }
                }
            }
            try copyText(\.keyframe, of: events, into: "keyframes(session_id, seq, state)")
            try copyText(\.nonFinite, of: events, into: "non_finite(session_id, seq, pointers)")
            let sites = events.filter { $0.site != nil }
            if !sites.isEmpty {
                try connection.copy(into: "send_sites(session_id, seq, file, line, function)") { buffer in
                    for event in sites {
                        let site = event.site!
                        CopyText.field(event.sessionID, &buffer)
                        CopyText.field(event.seq, &buffer)
                        CopyText.field(Array(site.file.utf8), &buffer)
                        CopyText.field(Int64(site.line), &buffer)
                        CopyText.field(Array(site.function.utf8), &buffer, last: true)
                    }
                }
            }
            // Each session's new range, delivered to every listening instance at commit.
            var ranges: [(session: Int64, first: Int64, last: Int64)] = []
            for event in events {
                if let index = ranges.lastIndex(where: { $0.session == event.sessionID }) {
                    ranges[index].last = max(ranges[index].last, event.seq)
                } else {
                    ranges.append((event.sessionID, event.seq, event.seq))
                }
            }
            let payloads = ranges.map { "pg_notify('\(Self.eventsChannel)', '\($0.session) \($0.first) \($0.last)')" }
            try connection.execute("SELECT " + payloads.joined(separator: ", ") + "; COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// COPYs `(session_id, seq, text)` for each event that has the text at `column` (a keyframe,
    /// non-finite marks); nothing when none has.
    private func copyText(_ column: KeyPath<EncodedEvent, [UInt8]?>, of events: [EncodedEvent], into target: String) throws(LogError) {
        let rows = events.filter { $0[keyPath: column] != nil }
        guard !rows.isEmpty else { return }
        try connection.copy(into: target) { buffer in
            for event in rows {
                CopyText.field(event.sessionID, &buffer)
                CopyText.field(event.seq, &buffer)
                CopyText.field(event[keyPath: column]!, &buffer, last: true)
            }
        }
    }

    // MARK: Prune

    /// Removes whole sessions. The ranges of sessions (``PostgresSchema/version3``) whose every
    /// session goes are dropped as a whole, partitions and all: no row is deleted one by one and
    /// no dead row stays behind. The sessions left in ranges that keep others are deleted row by
    /// row. The range the newest session is in is never dropped (sessions still land there).
    func prune(sessions ids: [Int64]) throws(LogError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        try connection.execute("BEGIN")
        do throws(LogError) {
            try connection.execute("SET LOCAL rewind.pruning = 'on'")
            // A session another instance is writing now is skipped (its lease is taken).
            let removable = try int64s("""
                SELECT id FROM sessions WHERE id = ANY(CAST(?1 AS bigint[])) AND pg_try_advisory_xact_lock(id) ORDER BY id
                """, [Self.array(Set(ids).sorted())])
            if !removable.isEmpty {
                let list = Self.array(removable)
                let ranges = try int64s("""
                    SELECT p.lower FROM rewind_partitions p
                    WHERE p.upper <= (SELECT max(id) FROM sessions)
                      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id >= p.lower AND s.id < p.upper AND s.id <> ALL(CAST(?1 AS bigint[])))
                    ORDER BY p.lower
                    """, [list])
                for lower in ranges { try dropPartitions(lower: lower) }
                let span = Int64(try connection.scalarText("SELECT rewind_partition_span()") ?? "") ?? 1
                let dropped = Set(ranges)
                let rest = removable.filter { !dropped.contains($0 - Self.floorModulo($0, span)) }
                if !rest.isEmpty {
                    for table in ["non_finite", "send_sites", "keyframes", "events"] {
                        _ = try connection.scalarText("DELETE FROM \(table) WHERE session_id = ANY(CAST(?1 AS bigint[]))", [Self.array(rest)])
                    }
                }
                for table in ["deliveries", "session_tags", "sessions"] {
                    let column = table == "sessions" ? "id" : "session_id"
                    _ = try connection.scalarText("DELETE FROM \(table) WHERE \(column) = ANY(CAST(?1 AS bigint[]))", [list])
                }
            }
            try connection.execute("COMMIT")
            for id in removable { release(session: id); nextSeq[id] = nil }
            return removable
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Drops the four partitions of the range starting at session `lower` (in prune's
    /// transaction): each detached from its table, then dropped, the ones that point into
    /// `events` first.
    private func dropPartitions(lower: Int64) throws(LogError) {
        for table in ["send_sites", "non_finite", "keyframes", "events"] {
            // Quoted as the schema's format('%I') names it (a negative lower bound has a '-').
            let partition = "\"\(table)_p\(lower)\""
            try connection.execute("ALTER TABLE \(table) DETACH PARTITION \(partition); DROP TABLE \(partition)")
        }
        _ = try connection.scalarText("DELETE FROM rewind_partitions WHERE lower = ?1", [String(lower)])
    }

    private func int64s(_ sql: String, _ parameters: [String?]) throws(LogError) -> [Int64] {
        let result = try connection.run(sql, parameters)
        defer { PQclearResult(result) }
        guard let rows = PGRowReader(result) else { return [] }
        return (0..<rows.count).map { rows.int64($0, 0) }
    }

    /// `{1,2,3}`: a bigint[] parameter.
    private static func array(_ ids: [Int64]) -> String {
        "{" + ids.map(String.init).joined(separator: ",") + "}"
    }

    /// `value mod span` in 0..<span, as the schema's `floor(value / span) * span` rounds.
    private static func floorModulo(_ value: Int64, _ span: Int64) -> Int64 {
        let remainder = value % span
        return remainder < 0 ? remainder + span : remainder
    }

    func prune(inactiveBefore cutoff: Double) throws(LogError) -> [Int64] {
        let result = try connection.run("""
            SELECT s.id FROM sessions s
            WHERE greatest(coalesce(s.ended_at, s.started_at), s.started_at,
                           coalesce((SELECT at FROM events WHERE session_id = s.id ORDER BY seq DESC LIMIT 1), 0)) < ?1
            """, ["\(cutoff)"])
        defer { PQclearResult(result) }
        var ids: [Int64] = []
        if let rows = PGRowReader(result) {
            for row in 0..<rows.count { ids.append(rows.int64(row, 0)) }
        }
        return ids.isEmpty ? [] : try prune(sessions: ids)
    }
}

extension PostgresWriterEngine: LogStoreOperations {}
