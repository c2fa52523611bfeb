import Foundation
import RewindJSON
import RewindPostgres
import RewindSupport

extension ProcessRoles {
    /// The columns of an event before schema 5; the exported rows for the previous layouts have them.
    static let eventColumns = "session_id, seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced"
    /// The columns `PostgresLogWriter` copies into since schema 6, in its order (the writer's words
    /// and lexemes last).
    static let eventColumnsWithWords = eventColumns + ", words, lexemes"
    static let keyframeColumns = "session_id, seq, state"

    /// `copy URL EVENTS KEYFRAMES CHUNK [words]`: the limit `rewind serve`'s ingest is compared with. Loads
    /// the rows in the two files (COPY's text format, as `\copy … TO` wrote them) into `events`
    /// and `keyframes` of the database at URL with `COPY … FROM STDIN` over libpq, in one
    /// transaction, CHUNK rows per COPY statement (0: one statement per table). The files are
    /// read and cut before the clock starts. Reports the time from BEGIN to the end of COMMIT and
    /// the CPU time of the connection's backend process over it. With `words`, the events' rows
    /// carry the writer's words and lexemes (this layout), else neither (the previous ones).
    static func copy(_ arguments: [String]) throws -> JSONValue {
        guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "words"), let chunk = Int(arguments[3]), chunk >= 0 else {
            throw BenchFailure("copy URL EVENTS KEYFRAMES CHUNK [words]")
        }
        let columns = arguments.count == 5 ? eventColumnsWithWords : eventColumns
        let connection = try PGConnection(url: PostgresURL(arguments[0]), applicationName: "rewind-bench-copy")
        let events = try chunks(of: arguments[1], rows: chunk)
        let keyframes = try chunks(of: arguments[2], rows: chunk)
        guard let backend = try connection.scalarText("SELECT pg_backend_pid()").flatMap({ Int32($0) }) else {
            throw BenchFailure("no backend pid")
        }
        let cpuBefore = ProcStat.cpuSeconds(pid: backend) ?? .nan
        let start = MonotonicClock.seconds()
        try connection.execute("BEGIN")
        for piece in events {
            try connection.copy(into: "events(\(columns))") { $0.append(contentsOf: piece) }
        }
        for piece in keyframes {
            try connection.copy(into: "keyframes(\(keyframeColumns))") { $0.append(contentsOf: piece) }
        }
        try connection.execute("COMMIT")
        let seconds = MonotonicClock.seconds() - start
        let cpu = (ProcStat.cpuSeconds(pid: backend) ?? .nan) - cpuBefore
        let rows = events.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
        return ["events": .number(JSONNumber(Int64(rows))), "seconds": .number(JSONNumber(seconds)!),
                "backendCPU": cpu.isFinite ? .number(JSONNumber(cpu)!) : .null]
    }

    /// The file's lines in pieces of `rows` lines (one piece with 0).
    private static func chunks(of path: String, rows: Int) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard rows > 0 else { return bytes.isEmpty ? [] : [bytes] }
        var pieces: [[UInt8]] = []
        var start = 0, lines = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            lines += 1
            if lines == rows {
                pieces.append(Array(bytes[start...index]))
                start = index + 1
                lines = 0
            }
        }
        if start < bytes.count { pieces.append(Array(bytes[start...])) }
        return pieces
    }
}
