import Foundation

/// Which SQL a log's connection speaks: the reader writes each query once, in SQLite's SQL, and
/// asks the dialect only where the two differ (catalog probes, type globs, text search, JSON).
package enum SQLDialect: Sendable, Equatable {
    /// The embedded file (CSQLite).
    case sqlite
    /// A team store (RewindPostgres, through libpq).
    case postgres
}

/// How a team store plans a query the reader asks again and again.
package enum SQLPlanning {
    /// A query whose SQL begins with this comment is planned for its values every time it runs,
    /// never once for any values (PostgreSQL's generic plan). Text search needs it: a generic
    /// plan cannot know how many events a word matches, and for a word in every event of a
    /// session it intersected two bitmaps of the whole session (35 ms) where reading in seq
    /// order and stopping at the hundredth match takes 0.3 ms.
    package static let eachTime = "/* rewind: planned each time */ "
}

/// One prepared query's rows, as the log's readers use them: bind (1-based), step, read columns
/// (0-based). ``Statement`` is SQLite's; RewindPostgres has libpq's. A value is used by one
/// thread at a time (its reader's lock).
package protocol SQLRows: AnyObject {
    /// Binds an integer to parameter `index`.
    func bind(_ value: Int64, at index: Int32) throws(LogError)
    /// Binds a double to parameter `index`.
    func bind(_ value: Double, at index: Int32) throws(LogError)
    /// Binds text to parameter `index`.
    func bind(_ value: String, at index: Int32) throws(LogError)
    /// Binds NULL to parameter `index`.
    func bindNull(at index: Int32) throws(LogError)
    /// Runs one step: `true` when a row is ready, `false` when the query is done.
    @discardableResult
    func step() throws(LogError) -> Bool
    /// Readies the query to run again; bindings are kept.
    func reset()
    /// Sets every parameter back to NULL.
    func clearBindings()
    /// `true` when column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool
    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64
    /// Column `index` as a double.
    func double(_ index: Int32) -> Double
    /// Lends column `index`'s bytes to `body`, valid only while it runs.
    func withBytes<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

/// What every store's rows (SQLite's ``Statement`` included) do the same way.
extension SQLRows {
    /// Binds NULL or an integer.
    package func bind(_ value: Int64?, at index: Int32) throws(LogError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds NULL or a string.
    package func bind(_ value: String?, at index: Int32) throws(LogError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Column `index` as text (empty for NULL).
    package func string(_ index: Int32) -> String {
        withBytes(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Column `index` as text, or `nil` when NULL.
    package func optionalString(_ index: Int32) -> String? {
        isNull(index) ? nil : string(index)
    }

    /// Column `index` as bytes.
    package func bytes(_ index: Int32) -> [UInt8] {
        withBytes(index) { Array($0) }
    }
}

/// A connection a ``LogReader`` reads through: SQLite's ``Connection`` or a PostgreSQL one.
package protocol SQLReadConnection: AnyObject {
    /// The SQL it speaks.
    var dialect: SQLDialect { get }
    /// Compiles `sql` (SQLite's spelling: `?1` or `?` parameters).
    func prepareRows(_ sql: String) throws(LogError) -> any SQLRows
    /// The first column of the first row of `sql`, or `nil`.
    func scalarInt(_ sql: String) throws(LogError) -> Int64?
    /// Runs `body` with a wall-clock budget: a query still running when it is spent stops with
    /// an error whose ``LogError/isInterrupted`` is `true`.
    func withTimeBudget<T, E: Error>(seconds: Double, _ body: () throws(E) -> T) throws(E) -> T
}

extension Statement: SQLRows {}

extension Connection: SQLReadConnection {
    package var dialect: SQLDialect { .sqlite }

    package func prepareRows(_ sql: String) throws(LogError) -> any SQLRows {
        try prepare(sql)
    }
}
