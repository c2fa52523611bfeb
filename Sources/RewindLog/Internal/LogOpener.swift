import CSQLite
import Foundation

/// Opens a log file: checks that it is a Rewind log this build can read, and gives a new or empty
/// file the schema. Writers and readers share it, so both refuse the same files the same way.
enum LogOpener {
    enum Access {
        /// The writer: creates the file when missing.
        case write
        /// A reader: the file must exist; an empty one still gets the schema when it is writable.
        case read
    }

    static func open(path: String, access: Access) throws(LogError) -> Connection {
        if access == .read, !FileManager.default.fileExists(atPath: path) {
            throw LogError(kind: .fileNotFound, message: "", path: path)
        }
        let connection: Connection
        var readOnly = false
        do {
            // The writer's connection lives on one thread; a reader's may be shared with its cursors.
            connection = try Connection(path: path, flags: access == .write ? [.readWrite, .create] : [.readWrite],
                                        serialized: access == .read)
        } catch where access == .read {
            // A file we may not write to can still be read.
            connection = try Connection(path: path, flags: [.readOnly])
            readOnly = true
        }
        try connection.execute("PRAGMA synchronous=NORMAL")
        try prepareSchema(connection, readOnly: readOnly)
        return connection
    }

    /// Checks the header and applies the migrations a file lacks.
    private static func prepareSchema(_ connection: Connection, readOnly: Bool) throws(LogError) {
        switch try inspect(connection) {
        case .current:
            return
        case .needsMigration(let from) where readOnly && from >= 1:
            // A file this process may not write is read as its schema stands; later versions
            // only add what older files lack (schema 2: the non-finite marks; 3: send sites, runs;
            // 4: the full-text index's progress, which only the writer uses).
            return
        case .needsMigration:
            // page_size only takes effect before the first table exists and before WAL.
            try connection.execute("PRAGMA page_size=\(LogSchema.pageSize)")
            try connection.execute("PRAGMA journal_mode=WAL")
            try connection.transaction(.immediate) { () throws(LogError) in
                // Another process may have created the schema while we waited for the lock.
                guard case .needsMigration(let from) = try inspect(connection) else { return }
                try migrate(connection, from: from)
            }
        }
    }

    private enum State {
        case current
        case needsMigration(from: Int)
    }

    private static func inspect(_ connection: Connection) throws(LogError) -> State {
        let applicationID: Int64
        do {
            // The first read of the header: a text file or random bytes fail here with NOTADB.
            applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
        } catch {
            throw notARewindLog(error, path: connection.path)
        }
        let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        let tables = try connection.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        if applicationID == Int64(LogSchema.applicationID) {
            if version > LogSchema.currentVersion {
                throw LogError(kind: .newerSchema(found: version, supported: LogSchema.currentVersion),
                               message: "", path: connection.path)
            }
            return version == LogSchema.currentVersion ? .current : .needsMigration(from: version)
        }
        if applicationID == 0 && tables == 0 && version == 0 {
            return .needsMigration(from: 0)
        }
        let owner = applicationID == 0 ? "it is an SQLite database of another application"
            : "it is an SQLite database of another application (application_id \(applicationID))"
        throw LogError(kind: .notARewindLog, message: "\(owner), with \(tables) schema objects and no Rewind header", path: connection.path)
    }

    private static func migrate(_ connection: Connection, from version: Int) throws(LogError) {
        for target in (version + 1)...LogSchema.currentVersion {
            try connection.execute(SchemaSQL.migrations[target - 1])
            let record = try connection.prepare("INSERT INTO rewind_schema(version, applied_at) VALUES (?1, ?2)")
            try record.bind(Int64(target), at: 1)
            try record.bind(Date().timeIntervalSince1970, at: 2)
            try record.step()
            try connection.execute("PRAGMA user_version=\(target)")
        }
        try connection.execute("PRAGMA application_id=\(LogSchema.applicationID)")
    }

    private static func notARewindLog(_ error: LogError, path: String) -> LogError {
        let primary = (error.code ?? 0) & 0xFF
        guard error.kind == .notARewindLog || primary == SQLITE_CORRUPT else { return error }
        // NOTADB and friends: the message SQLite gives ("file is not a database") says it well.
        return LogError(kind: .notARewindLog, code: error.code, message: error.message, path: path)
    }
}
