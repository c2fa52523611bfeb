/// Why a log operation failed, and where: one sentence in ``description``.
///
/// SQLite failures carry the result code, SQLite's message and the SQL that failed; the other
/// kinds say what is wrong with the file, the session or the batch.
///
/// ```swift
/// do { _ = try LogReader(path: "notes.txt") }
/// catch { print(error) }  // notes.txt is not a Rewind log: file is not a database.
/// ```
public struct LogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// SQLite returned an error code (see ``LogError/code``).
        case sqlite
        /// The file does not exist.
        case fileNotFound
        /// The file is not a Rewind log (another SQLite database, a text file, random bytes).
        case notARewindLog
        /// The file was written by a newer Rewind whose schema this build does not know.
        case newerSchema(found: Int, supported: Int)
        /// No session has this id, uuid prefix or name.
        case unknownSession(String)
        /// A uuid prefix names more than one session.
        case ambiguousSession(String, candidates: [String])
        /// A batch does not continue its session's seqs: `expected` is the next seq, `found` the given one.
        case seqOutOfOrder(session: Int64, expected: Int64, found: Int64)
        /// An event is malformed (for instance a patch that is not an array).
        case invalidEvent(session: Int64, seq: Int64)
        /// A stored JSON text could not be parsed.
        case invalidJSON(column: String)
        /// The writer was closed.
        case closed
        /// A session was continued with a different state hash than it started with.
        case hashVersionMismatch(session: String, stored: Int, requested: Int)
        /// Another writer (another process, or another writer in this one) holds the log; `holder`
        /// is what it wrote about itself (`pid 123: rewind serve`), when it could be read.
        case writerBusy(holder: String?)
        /// The log, or the folder it is in, cannot be written (a read-only file system, a file
        /// without write permission).
        case readOnly
        /// A session was continued under another run than the one it was recorded in.
        case runMismatch(session: String, stored: String?, requested: String)
        /// A completion, which runs on the writer thread, called one of the writer's synchronous
        /// methods: it would wait for itself.
        case calledFromWriterThread
        /// PostgreSQL refused a statement; `sqlstate` is its five-character error code.
        case postgres(sqlstate: String)
        /// The PostgreSQL database cannot be reached (wrong URL or password, down, or the
        /// connection was lost); what was acknowledged before stays stored.
        case unreachable
        /// Another `rewind serve` on the same database is writing the session now (it holds the
        /// session's lease); the app should connect there or retry later.
        case sessionLeased(session: String)
        /// A session was opened without proving it is its app's: its secret's digest differs from
        /// the one stored when the session began (or none was given for a session that has one).
        case notOwner(session: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The SQLite (extended) result code, when SQLite reported the error.
    public var code: Int32?
    /// SQLite's message, or our own detail.
    public var message: String
    /// The SQL that failed, when there is one.
    public var sql: String?
    /// The log file concerned, when known.
    public var path: String?

    /// Makes an error; most code uses the static constructors.
    public init(kind: Kind, code: Int32? = nil, message: String, sql: String? = nil, path: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// Whether SQLite stopped the statement because its time budget ran out
    /// (``LogReader/withTimeBudget(seconds:_:)``).
    public var isInterrupted: Bool {
        kind == .sqlite && (code ?? 0) & 0xFF == 9  // SQLITE_INTERRUPT
            || kind == .postgres(sqlstate: "57014")  // query_canceled, by statement_timeout
    }

    /// Whether the store could not be reached at all (the database went away): the operation may
    /// succeed once it is back.
    public var isUnreachable: Bool { kind == .unreachable }

    /// One sentence that says what failed and where.
    public var description: String {
        let file = path ?? "the log"
        switch kind {
        case .sqlite:
            var text = "SQLite error \(code.map(String.init) ?? "?") in \(file)"
            if let sql { text += " running `\(Self.abbreviated(sql))`" }
            return text + ": \(message)."
        case .fileNotFound:
            return "No Rewind log at \(file): the file does not exist."
        case .notARewindLog:
            return "\(file) is not a Rewind log: \(message)."
        case .newerSchema(let found, let supported):
            return "\(file) was written by a newer Rewind (schema \(found)); this build reads schema \(supported)."
        case .unknownSession(let name):
            return "No session named '\(name)' in \(file)\(message.isEmpty ? "" : ": \(message)")."
        case .ambiguousSession(let name, let candidates):
            return "Session prefix '\(name)' is ambiguous in \(file): it matches \(candidates.joined(separator: ", "))."
        case .seqOutOfOrder(let session, let expected, let found):
            let what = found < expected ? "is already stored (a duplicate)" : "leaves a gap"
            return "Session \(session) expects seq \(expected) next, but seq \(found) \(what); the batch was not written."
        case .invalidEvent(let session, let seq):
            return "Event \(seq) of session \(session) is invalid: \(message); the batch was not written."
        case .invalidJSON(let column):
            return "The \(column) stored in \(file) is not valid JSON: \(message)."
        case .closed:
            return "The log writer for \(file) is closed."
        case .hashVersionMismatch(let session, let stored, let requested):
            return "Session \(session) in \(file) records state hash version \(stored); it cannot continue with version \(requested)."
        case .writerBusy(let holder):
            return "\(file) is already being written by \(holder.map { "another process (\($0))" } ?? "another writer"); a log takes one writer at a time: stop that one, or read beside it (rewind serve --read-only, rewind log, …)."
        case .readOnly:
            return "\(file) cannot be written: \(message)."
        case .runMismatch(let session, let stored, let requested):
            return "Session \(session) in \(file) was recorded \(stored.map { "in run \($0)" } ?? "with no run"); it cannot continue in run \(requested) (a resume names the session's own run, or none)."
        case .calledFromWriterThread:
            return "A completion on the writer thread of \(file) called the writer synchronously; it would wait for itself."
        case .postgres(let sqlstate):
            var text = "PostgreSQL error \(sqlstate) in \(file)"
            if let sql { text += " running `\(Self.abbreviated(sql))`" }
            return text + ": \(message)."
        case .unreachable:
            return "The database \(file) cannot be reached: \(message)."
        case .notOwner(let session):
            return "Session \(session) in \(file) belongs to the app that started it, and this does not prove it (its secret is missing or another)."
        case .sessionLeased(let session):
            return "Session \(session) in \(file) is being written by another rewind serve instance (it holds the session's lease)\(message.isEmpty ? "" : ": \(message)")."
        }
    }

    private static func abbreviated(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefixSpaces() }.joined(separator: " ")
        return flat.count > 120 ? String(flat.prefix(117)) + "…" : flat
    }
}

extension Substring {
    fileprivate func trimmingPrefixSpaces() -> Substring {
        drop(while: { $0 == " " })
    }
}
