/// What a log holds and where its bytes go, for `rewind stats`: a file's, or a team store's
/// (then ``fileBytes`` is what Rewind's tables take and ``databaseBytes`` the whole database).
public struct LogStats: Sendable, Equatable {
    /// Sessions stored.
    public var sessions: Int
    /// Events stored.
    public var events: Int
    /// Keyframes stored.
    public var keyframes: Int
    /// Bytes of the main file; in a team store, of Rewind's tables with their indexes.
    public var fileBytes: Int64
    /// Bytes of the write-ahead log beside it (`-wal`), not yet checkpointed (0 for a team store).
    public var walBytes: Int64
    /// The whole database's size, PostgreSQL's own catalogs included, for a team store; `nil`
    /// for a file.
    public var databaseBytes: Int64?
    /// The page size.
    public var pageSize: Int
    /// Pages in the main file.
    public var pageCount: Int
    /// Pages free for reuse (after a prune).
    public var freePages: Int
    /// Bytes of the pages that hold events (table and its seq index).
    public var eventBytes: Int64
    /// Bytes of the pages that hold keyframes.
    public var keyframeBytes: Int64
    /// Bytes of the full-text index.
    public var textIndexBytes: Int64
    /// Bytes of the JSON text in events (action, patch, inverse), before page overhead.
    public var eventPayloadBytes: Int64
    /// Bytes of the JSON text in keyframes.
    public var keyframePayloadBytes: Int64
    /// `true` when the page figures come from SQLite's `dbstat` table; otherwise they are the
    /// payload sums.
    public var measuredByPages: Bool

    /// Makes a figure set.
    public init(sessions: Int, events: Int, keyframes: Int, fileBytes: Int64, walBytes: Int64, pageSize: Int,
                pageCount: Int, freePages: Int, eventBytes: Int64, keyframeBytes: Int64, textIndexBytes: Int64,
                eventPayloadBytes: Int64, keyframePayloadBytes: Int64, measuredByPages: Bool, databaseBytes: Int64? = nil) {
        self.databaseBytes = databaseBytes
        self.sessions = sessions
        self.events = events
        self.keyframes = keyframes
        self.fileBytes = fileBytes
        self.walBytes = walBytes
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.freePages = freePages
        self.eventBytes = eventBytes
        self.keyframeBytes = keyframeBytes
        self.textIndexBytes = textIndexBytes
        self.eventPayloadBytes = eventPayloadBytes
        self.keyframePayloadBytes = keyframePayloadBytes
        self.measuredByPages = measuredByPages
    }
}
