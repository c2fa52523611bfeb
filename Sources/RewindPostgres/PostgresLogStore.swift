import Foundation
import RewindLog

/// A team's log in PostgreSQL: `rewind serve --db postgres://…` and every command's `--db`.
///
/// ```swift
/// let store = try PostgresLogStore(url: "postgres://rewind@db.internal:5432/rewind")
/// let writer = try store.openWriter()      // migrates the schema on first use
/// let reader = try store.openReader()      // the same LogReader as for a file
/// ```
public struct PostgresLogStore: LogStore {
    /// The URL as given (with its password, if any): what libpq connects with.
    let url: PostgresURL

    /// The store at `url`; a malformed URL is one sentence. Nothing connects until a reader or
    /// writer is opened.
    public init(url: String) throws(LogError) {
        self.url = try PostgresURL(url)
    }

    /// `true` when `text` is a `postgres://` (or `postgresql://`) URL rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        PostgresURL.isPostgres(text)
    }

    /// `text` (a URL, parsed or not) without its password, for a message that names it.
    public static func redacted(_ text: String) -> String {
        PostgresURL.withoutPassword(text)
    }

    public var location: String { url.redacted }
    public var isShared: Bool { true }

    /// A reader on a connection of its own; a database without Rewind's tables is refused.
    public func openReader() throws(LogError) -> LogReader {
        let connection = try PGConnection(url: url, applicationName: "rewind-reader")
        try PostgresSchema.check(connection)
        return try LogReader(connection: connection, location: url.redacted)
    }

    /// Creates or migrates the schema, then starts a writer.
    public func openWriter(options: LogWriter.Options) throws(LogError) -> any LogStoreWriter {
        try PostgresLogWriter(url: url.text, options: options)
    }

    /// LISTEN/NOTIFY between the servers on this database.
    public func openFeed() throws(LogError) -> (any LogStoreFeed)? {
        PostgresFeed(url: url)
    }

    /// Creates or migrates the schema and returns (for `rewind serve`, which migrates once at
    /// start so that a bad URL or password is one sentence before it listens).
    public func migrate() throws(LogError) {
        let connection = try PGConnection(url: url, applicationName: "rewind-migrate")
        try PostgresSchema.migrate(connection)
    }
}
