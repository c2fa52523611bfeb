import CLibPQ
import Foundation
import RewindLog
import RewindSupport

/// One libpq connection (`PGconn*`), used by one thread at a time (its owner's lock or thread).
///
/// Queries are written in SQLite's spelling and translated once (`?1`, `?` → `$1`); each is
/// prepared on first use and run with text parameters whose types PostgreSQL infers, so the
/// reader's SQL serves both stores. Results are read whole (libpq's default): a reader's walk
/// holds one query's rows in memory.
///
/// A connection that breaks (the database restarted, a network cut) is reset on its next use;
/// the statements it had prepared are prepared again, and ``onReconnect`` runs so that its owner
/// can take back what the server forgot (advisory locks, LISTENs).
package final class PGConnection: SQLReadConnection, @unchecked Sendable {
    let handle: OpaquePointer
    /// The database, named as errors name it (no password).
    package let location: String
    private var prepared: [String: String] = [:]
    private var translations: [String: (sql: String, parameters: Int, unused: [Int])] = [:]
    private var nextName = 0
    /// Runs after the connection was re-established.
    package var onReconnect: ((PGConnection) throws(LogError) -> Void)?

    package var dialect: SQLDialect { .postgres }

    /// Connects; a wrong URL, wrong password or unreachable server is one sentence.
    package init(url: PostgresURL, applicationName: String = "rewind") throws(LogError) {
        location = url.redacted
        guard let connection = PQconnectdb(url.connectionString(applicationName: applicationName)) else {
            throw LogError(kind: .unreachable, message: "libpq could not allocate a connection", path: url.redacted)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = url.scrubbed(Self.sentence(PQerrorMessage(connection)))
            PQfinish(connection)
            throw LogError(kind: .unreachable, message: message, path: url.redacted)
        }
        handle = connection
        // Warnings (NOTICEs) would go to stderr; the server reports what matters itself.
        _ = try? execute("SET client_min_messages = warning")
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is up (as of the last thing libpq saw).
    package var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The connection's socket, for waiting on notifications.
    package var socket: Int32 { PQsocket(handle) }

    /// Resets a broken connection; throws ``LogError/Kind/unreachable`` while the server cannot
    /// be reached.
    package func ensureConnected() throws(LogError) {
        guard PQstatus(handle) != CONNECTION_OK else { return }
        PQreset(handle)
        prepared = [:]
        guard PQstatus(handle) == CONNECTION_OK else {
            throw LogError(kind: .unreachable, message: Self.sentence(PQerrorMessage(handle)), path: location)
        }
        _ = try? execute("SET client_min_messages = warning")
        try onReconnect?(self)
    }

    // MARK: Running SQL

    /// Runs `body`, and once more on a fresh connection when the connection turns out to have
    /// broken under it while no transaction was open (the database restarted since the last
    /// statement: libpq learns it only by trying). Inside a transaction the error stands: the
    /// transaction is gone, and its owner must start again.
    private func retryingOnce<T>(_ body: () throws(LogError) -> T) throws(LogError) -> T {
        try ensureConnected()
        let idle = PQtransactionStatus(handle) == PQTRANS_IDLE
        do {
            return try body()
        } catch {
            guard idle, error.isUnreachable, PQstatus(handle) != CONNECTION_OK else { throw error }
            try ensureConnected()
            return try body()
        }
    }

    /// Runs `sql` (one or more statements, no parameters).
    package func execute(_ sql: String) throws(LogError) {
        try retryingOnce { () throws(LogError) in
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            try check(result, sql: sql)
        }
    }

    /// Runs `sql` with `parameters` (SQLite spelling) and returns its rows; the caller clears
    /// the result.
    package func run(_ sql: String, _ parameters: [String?]) throws(LogError) -> OpaquePointer {
        if let budgetDeadline, MonotonicClock.seconds() >= budgetDeadline {
            throw LogError(kind: .postgres(sqlstate: "57014"), message: "the query's time budget was spent", sql: sql, path: location)
        }
        return try retryingOnce { () throws(LogError) -> OpaquePointer in
            let result: OpaquePointer?
            if sql.hasPrefix(SQLPlanning.eachTime) {
                // Planned for these values each time (the unnamed statement), not once for any.
                let translation = translated(sql)
                let types = Self.parameterTypes(translation)
                result = Self.withCStrings(parameters) { values in
                    PQexecParams(handle, translation.sql, Int32(values.count), types, values, nil, nil, 0)
                }
            } else {
                let name = try preparedName(for: sql)
                result = Self.withCStrings(parameters) { values in
                    PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
                }
            }
            do throws(LogError) {
                try check(result, sql: sql)
            } catch {
                PQclear(result)
                throw error
            }
            return result!
        }
    }

    /// The text of column 0 of row 0 of `sql`, or `nil`.
    package func scalarText(_ sql: String, _ parameters: [String?] = []) throws(LogError) -> String? {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        guard PQntuples(result) > 0, PQgetisnull(result, 0, 0) == 0 else { return nil }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    package func scalarInt(_ sql: String) throws(LogError) -> Int64? {
        try scalarText(sql).flatMap { Int64($0) }
    }

    package func prepareRows(_ sql: String) throws(LogError) -> any SQLRows {
        PGRows(connection: self, sql: sql, parameterCount: translated(sql).parameters)
    }

    package func withTimeBudget<T, E: Error>(seconds: Double, _ body: () throws(E) -> T) throws(E) -> T {
        // The server cancels a statement past statement_timeout with SQLSTATE 57014, which
        // LogError.isInterrupted recognizes; a query of many statements (a walk goes a page at
        // a time) is stopped before its next statement once the budget is spent, so it ends
        // within about twice the budget.
        let milliseconds = max(1, Int((seconds * 1_000).rounded(.up)))
        _ = try? execute("SET statement_timeout = \(milliseconds)")
        budgetDeadline = MonotonicClock.seconds() + seconds
        defer {
            budgetDeadline = nil
            _ = try? execute("SET statement_timeout = 0")
        }
        return try body()
    }

    /// When the running time budget ends (``MonotonicClock`` seconds), if one runs.
    private var budgetDeadline: Double?

    // MARK: COPY

    /// Streams `rows` (already in COPY's text format, one line each) into `COPY target FROM STDIN`;
    /// with `binary`, the rows `write` adds are in COPY's binary format (``CopyBinary``), and the
    /// header and trailer are added here.
    package func copy(into target: String, binary: Bool = false, _ write: (inout [UInt8]) -> Void) throws(LogError) {
        try ensureConnected()
        let sql = "COPY \(target) FROM STDIN" + (binary ? " (FORMAT binary)" : "")
        let start = PQexec(handle, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            defer { PQclear(start) }
            try check(start, sql: sql)
            throw LogError(kind: .postgres(sqlstate: "XX000"), message: "COPY did not start", sql: sql, path: location)
        }
        PQclear(start)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        if binary { CopyBinary.header(&buffer) }
        write(&buffer)
        if binary { CopyBinary.trailer(&buffer) }
        // In pieces of 1 MiB: libpq takes an Int32 length, and a piece at a time keeps its own
        // buffer small.
        let sent = buffer.withUnsafeBufferPointer { raw -> Int32 in
            guard let base = raw.baseAddress else { return 1 }
            var offset = 0
            while offset < raw.count {
                let length = min(1 << 20, raw.count - offset)
                let result = PQputCopyData(handle, UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self), Int32(length))
                guard result == 1 else { return result }
                offset += length
            }
            return 1
        }
        guard sent == 1, PQputCopyEnd(handle, nil) == 1 else {
            throw LogError(kind: .unreachable, message: Self.sentence(PQerrorMessage(handle)), path: location)
        }
        var failure: LogError?
        while let result = PQgetResult(handle) {
            do throws(LogError) { try check(result, sql: sql) } catch { failure = failure ?? error }
            PQclear(result)
        }
        if let failure { throw failure }
    }

    // MARK: Notifications

    /// The notifications received so far (after reading what the socket holds).
    package func notifications() throws(LogError) -> [(channel: String, payload: String)] {
        guard PQconsumeInput(handle) == 1 else {
            throw LogError(kind: .unreachable, message: Self.sentence(PQerrorMessage(handle)), path: location)
        }
        var received: [(channel: String, payload: String)] = []
        while let notice = PQnotifies(handle) {
            received.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return received
    }

    // MARK: Internals

    private func preparedName(for sql: String) throws(LogError) -> String {
        if let name = prepared[sql] { return name }
        nextName += 1
        let name = "rw\(nextName)"
        let translation = translated(sql)
        let types = Self.parameterTypes(translation)
        let result = PQprepare(handle, name, translation.sql, Int32(types.count), types)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// The parameters' types for libpq: inferred (0), but a parameter the SQL skips (a filter
    /// left out) has no type to infer: text.
    private static func parameterTypes(_ translation: (sql: String, parameters: Int, unused: [Int])) -> [Oid] {
        var types = [Oid](repeating: 0, count: translation.parameters)
        for number in translation.unused { types[number - 1] = 25 }  // text
        return types
    }

    private func translated(_ sql: String) -> (sql: String, parameters: Int, unused: [Int]) {
        if let known = translations[sql] { return known }
        let translation = Self.translate(sql)
        translations[sql] = translation
        return translation
    }

    /// SQLite's parameters (`?1`, `?`) as PostgreSQL's (`$1`), outside quotes and `--` comments;
    /// the highest number, and the numbers below it the SQL never names. Rewind's own SQL only:
    /// it has no dollar quotes or `E''` strings, which this does not read (user text never goes
    /// into SQL, only into parameters).
    package static func translate(_ sql: String) -> (sql: String, parameters: Int, unused: [Int]) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var characters = Array(sql)[...]
        var quote: Character?
        var nextAnonymous = 1
        var highest = 0
        var used = Set<Int>()
        while let character = characters.popFirst() {
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                output.append(character)
                continue
            }
            // A comment runs to the end of its line: a `?` in it is no parameter.
            if character == "-", characters.first == "-" {
                output.append(character)
                while let next = characters.popFirst() {
                    output.append(next)
                    if next.isNewline { break }
                }
                continue
            }
            guard character == "?" else { output.append(character); continue }
            var digits = ""
            while let digit = characters.first, digit.isASCII, digit.isNumber {
                digits.append(digit)
                characters = characters.dropFirst()
            }
            let number = Int(digits) ?? nextAnonymous
            if digits.isEmpty { nextAnonymous += 1 } else { nextAnonymous = number + 1 }
            highest = max(highest, number)
            used.insert(number)
            output += "$\(number)"
        }
        return (output, highest, highest == 0 ? [] : (1...highest).filter { !used.contains($0) })
    }

    private func check(_ result: OpaquePointer?, sql: String?) throws(LogError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_IN, PGRES_EMPTY_QUERY:
            return
        default:
            throw error(result, sql: sql)
        }
    }

    /// The error `result` (or the connection) reports: a lost connection as
    /// ``LogError/Kind/unreachable``, the rest with their SQLSTATE.
    func error(_ result: OpaquePointer?, sql: String?) -> LogError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let primary = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
        let message = primary.map(Self.sentence) ?? Self.sentence(PQerrorMessage(handle))
        if PQstatus(handle) != CONNECTION_OK || state == nil || state!.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state!) {
            return LogError(kind: .unreachable, message: message.isEmpty ? "the connection was lost" : message, path: location)
        }
        return LogError(kind: .postgres(sqlstate: state!), message: message, sql: sql, path: location)
    }

    /// libpq's message as the end of one sentence: its first line, without the final period.
    static func sentence(_ text: UnsafePointer<CChar>?) -> String {
        text.map { sentence(String(cString: $0)) } ?? ""
    }

    /// `text`'s first line, trimmed, without the final period.
    static func sentence(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        // libpq's severity prefix says nothing the sentence does not.
        var trimmed = line.replacingOccurrences(of: "FATAL:  ", with: "").replacingOccurrences(of: "ERROR:  ", with: "")
            .trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed
    }

    /// Lends `strings` to `body` as C strings (NULL for `nil`).
    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        // A C string ends at U+0000, and PostgreSQL's text cannot hold one: it becomes U+FFFD.
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0.contains("\u{0}") ? $0.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : $0) } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
