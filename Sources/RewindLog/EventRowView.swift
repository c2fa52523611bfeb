import Foundation
import RewindJSON

/// One `events` row (with its keyframe, when asked for) as a replay walks a session, read from
/// SQLite column by column only when asked.
///
/// A view is lent to the visitor of ``LogReader/walkEvents(session:from:to:descending:includeKeyframes:_:)``
/// and is valid only while the visitor runs: the next step of the walk overwrites it.
package struct EventRowView {
    private let statement: any SQLRows
    private let path: String
    private let includesKeyframe: Bool

    init(statement: any SQLRows, path: String, includesKeyframe: Bool) {
        self.statement = statement
        self.path = path
        self.includesKeyframe = includesKeyframe
    }

    /// The SQL of a walk; the columns are read by index below.
    static func sql(descending: Bool, includeKeyframes: Bool) -> String {
        var sql = "SELECT e.seq, e.at, e.action_type, e.hash, e.coalesced, e.patch, e.inverse, e.action, e.duration_ns, e.cause"
        sql += includeKeyframes
            ? ", k.state FROM events e LEFT JOIN keyframes k ON k.session_id = e.session_id AND k.seq = e.seq"
            : " FROM events e"
        sql += " WHERE e.session_id = ?1 AND e.seq BETWEEN ?2 AND ?3 ORDER BY e.seq " + (descending ? "DESC" : "ASC")
        return sql
    }

    /// The event's seq.
    package var seq: Int64 { statement.int64(0) }
    /// When the action was sent.
    package var at: Date { Date(timeIntervalSince1970: statement.double(1)) }
    /// `events.action_type`.
    package var actionType: String { statement.string(2) }
    /// The stored hash of the state after the event.
    package var hash: UInt64 { UInt64(bitPattern: statement.int64(3)) }
    /// The `coalesced` flag.
    package var coalesced: Bool { statement.int64(4) != 0 }
    /// The reducer's duration in nanoseconds.
    package var durationNs: Int64 { statement.int64(8) }
    /// The seq that caused this event, when recorded.
    package var cause: Int64? { statement.isNull(9) ? nil : statement.int64(9) }

    /// The forward patch, parsed.
    package func patch() throws(LogError) -> JSONValue {
        try RowDecoder.json(statement, 5, column: "events.patch", path: path)
    }

    /// The inverse patch, parsed.
    package func inverse() throws(LogError) -> JSONValue {
        try RowDecoder.json(statement, 6, column: "events.inverse", path: path)
    }

    /// The action, parsed.
    package func action() throws(LogError) -> JSONValue {
        try RowDecoder.json(statement, 7, column: "events.action", path: path)
    }

    /// Bytes of the stored forward patch text.
    package var patchBytes: Int { statement.withBytes(5) { $0.count } }
    /// Bytes of the stored inverse patch text.
    package var inverseBytes: Int { statement.withBytes(6) { $0.count } }

    /// `true` when a keyframe is stored at this seq (always `false` when the walk did not ask for keyframes).
    package var hasKeyframe: Bool { includesKeyframe && !statement.isNull(10) }

    /// The keyframe stored at this seq and the bytes of its text, or `nil`.
    package func keyframe() throws(LogError) -> (state: JSONValue, bytes: Int)? {
        guard hasKeyframe else { return nil }
        let bytes = statement.withBytes(10) { $0.count }
        return (try RowDecoder.json(statement, 10, column: "keyframes.state", path: path), bytes)
    }
}

extension LogReader {
    /// Walks the events of `session` with `from ≤ seq ≤ to` in seq order (descending when asked),
    /// lending each row to `visit` until it returns `false`.
    ///
    /// The reader's lock is held for the whole walk, so `visit` must not call this reader. One
    /// cached statement serves every walk of the same shape, so a short walk (one step from a
    /// cached state) costs an index probe, not a compile.
    package func walkEvents(session: Int64, from: Int64, to: Int64, descending: Bool = false, includeKeyframes: Bool = false,
                            _ visit: (EventRowView) throws(LogError) -> Bool) throws(LogError) {
        let sql = EventRowView.sql(descending: descending, includeKeyframes: includeKeyframes)
        if dialect == .postgres {
            // A PostgreSQL query's rows are read whole: a long walk goes a page of seqs at a
            // time, so a session of a million events never sits in memory at once.
            try walkInPages(sql, session: session, from: from, to: to, descending: descending, includeKeyframes: includeKeyframes, visit)
            return
        }
        try withStatement(sql) { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(from, at: 2)
            try statement.bind(to, at: 3)
            let row = EventRowView(statement: statement, path: path, includesKeyframe: includeKeyframes)
            while try statement.step() {
                guard try visit(row) else { return }
            }
        }
    }

    /// Walks from the nearest keyframe at or before `target`, if one is at most `within` seqs
    /// before it, up to `target`, in one query: the first row carries the keyframe. Visits
    /// nothing when no keyframe is that near. A rebuild's short road: one round trip to a team
    /// store, where probing for keyframes first takes two.
    package func walkFromKeyframe(session: Int64, target: Int64, within: Int64,
                                  _ visit: (EventRowView) throws(LogError) -> Bool) throws(LogError) {
        let sql = """
            SELECT e.seq, e.at, e.action_type, e.hash, e.coalesced, e.patch, e.inverse, e.action, e.duration_ns, e.cause,
                   CASE WHEN e.seq = k.seq THEN k.state END
            FROM (SELECT seq, state FROM keyframes WHERE session_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq DESC LIMIT 1) k
            JOIN events e ON e.session_id = ?1 AND e.seq BETWEEN k.seq AND ?3
            ORDER BY e.seq
            """
        try withStatement(sql) { statement throws(LogError) in
            try statement.bind(session, at: 1)
            try statement.bind(max(0, target - within), at: 2)
            try statement.bind(target, at: 3)
            let row = EventRowView(statement: statement, path: path, includesKeyframe: true)
            while try statement.step() {
                guard try visit(row) else { return }
            }
        }
    }

    /// The seqs a page of a paged walk covers.
    static let walkPage: Int64 = 2_000

    private func walkInPages(_ sql: String, session: Int64, from: Int64, to: Int64, descending: Bool, includeKeyframes: Bool,
                             _ visit: (EventRowView) throws(LogError) -> Bool) throws(LogError) {
        // The walk's real ends: seqs start at 0 and stop at the session's last, so a range given
        // as Int64.min…Int64.max is not walked in pages of nothing.
        let from = max(from, 0)
        guard from <= to else { return }
        // A range of one page is read as it is (what is not stored is simply not returned): a
        // rebuild's short walk costs one round trip, not two.
        let last = to - from < Self.walkPage ? to : min(to, try lastSeq(session: session) ?? -1)
        guard from <= last else { return }
        var low = descending ? max(from, last - Self.walkPage + 1) : from
        var high = descending ? last : min(last, from + Self.walkPage - 1)
        while true {
            let more = try withStatement(sql) { statement throws(LogError) -> Bool in
                try statement.bind(session, at: 1)
                try statement.bind(low, at: 2)
                try statement.bind(high, at: 3)
                let row = EventRowView(statement: statement, path: path, includesKeyframe: includeKeyframes)
                while try statement.step() {
                    guard try visit(row) else { return false }
                }
                return true
            }
            guard more else { return }
            if descending {
                guard low > from else { return }
                high = low - 1
                low = max(from, high - Self.walkPage + 1)
            } else {
                guard high < last else { return }
                low = high + 1
                high = min(last, low + Self.walkPage - 1)
            }
        }
    }
}
