import CLibPQ
import Foundation
import RewindLog

/// One query on a ``PGConnection`` as ``SQLRows``: the parameters as text, the whole result read
/// at the first ``step()``, columns parsed from PostgreSQL's text format.
final class PGRows: SQLRows {
    private let connection: PGConnection
    private let sql: String
    private var parameters: [String?]
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rowCount: Int32 = 0

    init(connection: PGConnection, sql: String, parameterCount: Int) {
        self.connection = connection
        self.sql = sql
        parameters = Array(repeating: nil, count: parameterCount)
    }

    deinit {
        if let result { PQclear(result) }
    }

    private func set(_ value: String?, at index: Int32) throws(LogError) {
        let position = Int(index) - 1
        guard parameters.indices.contains(position) else {
            throw LogError(kind: .postgres(sqlstate: "08P01"), message: "parameter \(index) is out of range", sql: sql, path: connection.location)
        }
        parameters[position] = value
    }

    func bind(_ value: Int64, at index: Int32) throws(LogError) { try set(String(value), at: index) }
    func bind(_ value: Double, at index: Int32) throws(LogError) {
        // Swift prints the shortest text that reads back as the same double, as PostgreSQL does.
        try set(value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value > 0 ? "Infinity" : "-Infinity")), at: index)
    }
    func bind(_ value: String, at index: Int32) throws(LogError) { try set(value, at: index) }
    func bindNull(at index: Int32) throws(LogError) { try set(nil, at: index) }

    @discardableResult
    func step() throws(LogError) -> Bool {
        if result == nil {
            let rows = try connection.run(sql, parameters)
            result = rows
            row = -1
            rowCount = PQntuples(rows)
        }
        row += 1
        return row < rowCount
    }

    func reset() {
        if let result { PQclear(result) }
        result = nil
        row = -1
    }

    func clearBindings() {
        for index in parameters.indices { parameters[index] = nil }
    }

    func isNull(_ index: Int32) -> Bool {
        guard let result, row < rowCount else { return true }
        return PQgetisnull(result, row, index) != 0
    }

    func int64(_ index: Int32) -> Int64 {
        guard let result, row < rowCount, PQgetisnull(result, row, index) == 0, let text = PQgetvalue(result, row, index) else { return 0 }
        return Self.parseInteger(text)
    }

    func double(_ index: Int32) -> Double {
        guard let result, row < rowCount, PQgetisnull(result, row, index) == 0, let text = PQgetvalue(result, row, index) else { return 0 }
        return strtod(text, nil)
    }

    func withBytes<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let result, row < rowCount, PQgetisnull(result, row, index) == 0, let text = PQgetvalue(result, row, index) else {
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
        let count = Int(PQgetlength(result, row, index))
        return try UnsafeRawPointer(text).withMemoryRebound(to: UInt8.self, capacity: max(count, 1)) { bytes in
            try body(UnsafeBufferPointer(start: bytes, count: count))
        }
    }

    /// An integer column's text (`bigint`, `integer`; `t`/`f` for a boolean; a `numeric` sum
    /// truncated), parsed without making a String.
    static func parseInteger(_ text: UnsafePointer<CChar>) -> Int64 {
        var pointer = text
        switch UInt8(bitPattern: pointer.pointee) {
        case UInt8(ascii: "t"): return 1
        case UInt8(ascii: "f"): return 0
        default: break
        }
        var negative = false
        if pointer.pointee == CChar(UInt8(ascii: "-")) { negative = true; pointer += 1 }
        var value: Int64 = 0
        while true {
            let byte = UInt8(bitPattern: pointer.pointee)
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            // Overflow wraps like the largest bigint would not: only a numeric beyond 2^63 does.
            value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
            pointer += 1
        }
        if pointer.pointee != 0 {  // "1.5", "1e3": a numeric or float
            let number = strtod(text, nil)
            return number.isFinite && abs(number) < 9.2e18 ? Int64(number) : 0
        }
        return negative ? 0 &- value : value
    }
}
