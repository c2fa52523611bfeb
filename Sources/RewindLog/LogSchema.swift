/// The constants that identify a Rewind log file.
///
/// A Rewind log is an SQLite database whose header carries ``applicationID`` (`PRAGMA
/// application_id`, the bytes `RWND`) and whose `PRAGMA user_version` is its schema version.
/// The table `rewind_schema` records when each version was applied. See `Docs/LogFormat.md`.
public enum LogSchema {
    /// `PRAGMA application_id` of every Rewind log: `RWND` in ASCII.
    public static let applicationID: Int32 = 0x5257_4E44
    /// The schema version this build writes and reads.
    public static let currentVersion = 7
    /// The page size given to a new file, before it is switched to WAL.
    public static let pageSize = 4_096
}
