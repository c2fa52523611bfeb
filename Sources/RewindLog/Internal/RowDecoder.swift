import Foundation
import RewindJSON

/// Turns result rows into model values.
enum RowDecoder {
    /// A row of ``LogReader/sessionQuery(withRun:withHashVersion:)``.
    static func session(_ row: any SQLRows, path: String) throws(LogError) -> SessionInfo {
        let lastSeq: Int64? = row.isNull(7) ? nil : row.int64(7)
        return SessionInfo(
            id: row.int64(0),
            uuid: row.string(1),
            app: row.string(2),
            startedAt: Date(timeIntervalSince1970: row.double(3)),
            endedAt: row.isNull(4) ? nil : Date(timeIntervalSince1970: row.double(4)),
            meta: try json(row, 5, column: "sessions.meta", path: path),
            replayOf: row.optionalString(6),
            eventCount: lastSeq.map { Int($0) + 1 } ?? 0,
            lastSeq: lastSeq,
            keyframeCount: Int(row.int64(8)),
            lastEventAt: row.isNull(9) ? nil : Date(timeIntervalSince1970: row.double(9)),
            run: row.optionalString(10),
            hashVersion: StateHashVersion(rawValue: Int(row.int64(11))) ?? .v1,
            crash: row.isNull(12) ? JSONValue?.none : try json(row, 12, column: "events.action", path: path))
    }

    /// The columns ``event(_:path:)`` reads, from `events e` and `keyframes k` (LEFT JOINed).
    static let eventColumns = """
        e.session_id, e.seq, e.at, e.action_type, e.action, e.patch, e.inverse, e.hash, e.duration_ns, e.cause, e.coalesced
        """

    static func event(_ row: any SQLRows, path: String, keyframeColumn: Int32? = nil) throws(LogError) -> LogEvent {
        LogEvent(
            sessionID: row.int64(0),
            seq: row.int64(1),
            at: Date(timeIntervalSince1970: row.double(2)),
            action: try json(row, 4, column: "events.action", path: path),
            actionType: row.string(3),
            patch: try json(row, 5, column: "events.patch", path: path),
            inverse: try json(row, 6, column: "events.inverse", path: path),
            hash: UInt64(bitPattern: row.int64(7)),
            durationNs: row.int64(8),
            cause: row.isNull(9) ? nil : row.int64(9),
            coalesced: row.int64(10) != 0,
            keyframe: try keyframe(row, keyframeColumn, path: path))
    }

    /// The keyframe column when it was selected and holds a state. (Spelled out: a bare `nil`
    /// in a `JSONValue?` ternary is JSON null, since `JSONValue` takes nil literals too.)
    private static func keyframe(_ row: any SQLRows, _ column: Int32?, path: String) throws(LogError) -> JSONValue? {
        guard let column, !row.isNull(column) else { return Optional.none }
        return try json(row, column, column: "keyframes.state", path: path)
    }

    /// Parses the JSON text in `index`, naming the column when it is not JSON.
    static func json(_ row: any SQLRows, _ index: Int32, column: String, path: String) throws(LogError) -> JSONValue {
        do {
            return try JSONValue(parsing: row.bytes(index))
        } catch {
            throw LogError(kind: .invalidJSON(column: column), message: error.description, path: path)
        }
    }
}
