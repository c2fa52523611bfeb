import CSQLite

/// One compiled SQL statement: owns its `sqlite3_stmt*` and finalizes it in `deinit`.
///
/// Parameters are 1-based (`?1`), columns 0-based, as in SQLite's C API. A statement keeps its
/// connection alive. Reuse it: bind, ``step()`` until it returns `false`, ``reset()``.
package final class Statement {
    let handle: OpaquePointer
    /// The connection that compiled it.
    package let connection: Connection

    init(handle: OpaquePointer, connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The statement's SQL text.
    package var sql: String { String(cString: sqlite3_sql(handle)) }

    // MARK: Binding

    /// Binds an integer to parameter `index`.
    package func bind(_ value: Int64, at index: Int32) throws(LogError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a double to parameter `index`.
    package func bind(_ value: Double, at index: Int32) throws(LogError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds a string to parameter `index` (SQLite takes its own copy).
    package func bind(_ value: String, at index: Int32) throws(LogError) {
        var value = value
        let code = value.withUTF8 { buffer in
            let start = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text(handle, index, start, Int32(buffer.count), rewind_sqlite_transient())
        }
        try check(code)
    }

    /// Binds NULL or a double.
    package func bind(_ value: Double?, at index: Int32) throws(LogError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds NULL to parameter `index`.
    package func bindNull(at index: Int32) throws(LogError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds UTF-8 `text` without copying it.
    ///
    /// The bytes must stay valid until the statement has been stepped and reset or rebound;
    /// ``withText(_:at:_:)`` scopes that for you.
    package func bindText(borrowing text: UnsafeBufferPointer<UInt8>, at index: Int32) throws(LogError) {
        let pointer = UnsafeRawPointer(text.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        try check(sqlite3_bind_text(handle, index, pointer, Int32(text.count), rewind_sqlite_static()))
    }

    /// Binds `bytes` as a blob (SQLite takes its own copy).
    package func bind(bytes: [UInt8], at index: Int32) throws(LogError) {
        let code = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(raw.count), rewind_sqlite_transient())
        }
        try check(code)
    }

    /// Binds `text` (UTF-8) without copying while `body` runs, typically a ``step()``.
    @discardableResult
    package func withText<R>(_ text: [UInt8], at index: Int32, _ body: () throws(LogError) -> R) throws(LogError) -> R {
        let result = text.withUnsafeBufferPointer { buffer -> Result<R, LogError> in
            do throws(LogError) {
                try bindText(borrowing: buffer, at: index)
                let value = try body()
                // Never leave SQLite a pointer that outlives the buffer.
                sqlite3_bind_null(handle, index)
                return .success(value)
            } catch {
                sqlite3_reset(handle)
                sqlite3_bind_null(handle, index)
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Stepping

    /// Runs one step: `true` when a row is ready, `false` when the statement is done.
    @discardableResult
    package func step() throws(LogError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        // The statement's own error, with its SQL; reset so the statement can run again.
        let error = connection.error(code: code, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Readies the statement to run again; bindings are kept.
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to NULL.
    package func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns

    /// The number of columns in a row.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// `true` when column `index` of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer.
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a double.
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Lends column `index`'s text or blob bytes to `body`, valid only while it runs.
    package func withBytes<R>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        // Asking for the blob first and then its size is the order SQLite documents as copy-free.
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let pointer, count > 0 else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count))
    }

    private func check(_ code: Int32) throws(LogError) {
        if code != SQLITE_OK { throw connection.error(code: code, sql: sql) }
    }
}
