import Foundation
import RewindSupport

/// The writer thread's state: its connection, its prepared statements, the open group-commit
/// transaction and the next expected seq of every session it has written to.
///
/// Only the writer thread touches it. Appends go into one transaction that is committed when it
/// is ``LogWriter/Options/commitInterval`` old, holds ``LogWriter/Options/maxEventsPerCommit``
/// events, or before any synchronous call; completions run after the commit.
///
/// The full-text index is filled in a transaction of its own, off the commit path: at the
/// latest ``LogWriter/Options/indexInterval`` after a commit, in `flush` (which so returns with
/// everything committed and searchable) and before a prune (which so deletes only indexed rows),
/// when the writer stops, and when it opens a file a writer left unindexed.
final class WriterEngine {
    let connection: Connection
    let options: LogWriter.Options
    let queue: WriterQueue
    private let insertEvent: Statement
    private let insertKeyframe: Statement
    private let insertNonFinite: Statement
    private let insertSite: Statement
    private let indexText: Statement
    private let saveIndexProgress: Statement
    private let loadSessionHead: Statement

    /// The seq each session expects next, as committed or pending in the open transaction.
    var nextSeq: [Int64: Int64] = [:]
    /// Batches written in the open transaction, kept until it commits (their completions wait).
    private var pending: [PendingBatch] = []
    private(set) var pendingEventCount = 0
    private var transactionStart: Double?
    /// The rowid of the last event written in the open transaction.
    private var lastRowID: Int64?
    /// The highest event rowid committed, and the highest the full-text index covers.
    private(set) var committedThrough: Int64
    private(set) var indexedThrough: Int64
    /// When the committed events above ``indexedThrough`` must be indexed, if any wait.
    private(set) var indexDeadline: Double?

    /// Checkpoints on its own thread, so commits never wait for one.
    private let checkpointer: Checkpointer
    /// WAL frames (4 KiB pages) of growth after which the background checkpoint is asked for
    /// again, and the size after which the writer checkpoints itself.
    static let backgroundCheckpointFrames: Int32 = 1_000
    static let writerCheckpointFrames: Int32 = 4_000

    init(path: String, options: LogWriter.Options, queue: WriterQueue) throws(LogError) {
        connection = try LogOpener.open(path: path, access: .write)
        // SQLite opens a file it may not write read-only without a word; a writer must say so
        // now rather than fail every append.
        guard !connection.isReadOnly else {
            throw LogError(kind: .readOnly, message: "the file or its file system is read-only", path: path)
        }
        self.options = options
        self.queue = queue
        insertEvent = try connection.prepare("""
            INSERT INTO events(session_id, seq, at, action_type, action, patch, inverse, hash, duration_ns, cause, coalesced)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """)
        insertKeyframe = try connection.prepare("INSERT INTO keyframes(session_id, seq, state) VALUES (?1, ?2, ?3)")
        insertNonFinite = try connection.prepare("INSERT INTO non_finite(session_id, seq, pointers) VALUES (?1, ?2, ?3)")
        insertSite = try connection.prepare("INSERT INTO send_sites(session_id, seq, file, line, function) VALUES (?1, ?2, ?3, ?4, ?5)")
        // One statement for every event waiting rather than one per row: FTS5 keeps the terms in
        // memory and writes them once, instead of flushing a segment at every statement savepoint.
        indexText = try connection.prepare("INSERT INTO events_fts(rowid, action) SELECT id, action FROM events WHERE id > ?1 AND id <= ?2")
        saveIndexProgress = try connection.prepare("UPDATE rewind_fts_progress SET id = ?1")
        indexedThrough = try connection.scalarInt("SELECT id FROM rewind_fts_progress") ?? 0
        committedThrough = try connection.scalarInt("SELECT coalesce(max(id), 0) FROM events") ?? 0
        // A writer that stopped without indexing (a crash) left work: do it first.
        if committedThrough != indexedThrough { indexDeadline = MonotonicClock.seconds() }
        loadSessionHead = try connection.prepare("""
            SELECT (SELECT max(seq) FROM events WHERE session_id = ?1), EXISTS (SELECT 1 FROM sessions WHERE id = ?1)
            """)
        // Last, so nothing after it can throw: a thrown init runs no deinit to stop the thread.
        let checkpointer = Checkpointer(path: path)
        self.checkpointer = checkpointer
        // A background checkpoint is asked for each time the WAL has grown by another
        // `backgroundCheckpointFrames` since the last request (or since it restarted), not after
        // every commit past that size: at a steady few thousand events a second, asking at every
        // commit ran a pass, with its two fsyncs, for each commit's hundred-odd frames and cost
        // the server 3–4 µs per event (Docs/BenchmarkHistory.md, "Out of process, fifth part").
        var nextRequest = Self.backgroundCheckpointFrames
        var lastFrames: Int32 = 0
        connection.setWALHook { [unowned connection] frames in
            if frames < lastFrames { nextRequest = Self.backgroundCheckpointFrames }  // it restarted
            lastFrames = frames
            if frames >= nextRequest, options.checkpointsInBackground {
                nextRequest = frames + Self.backgroundCheckpointFrames
                checkpointer.request()
            }
            // The background checkpoint's passes copy what the WAL held when each began; when
            // commits keep landing during its passes (a steady stream on busy cores) none covers
            // the whole WAL, the WAL never restarts from its beginning, and it grows for as long
            // as the stream lasts. Past this bound the writer finishes the job itself between
            // two commits, where nothing else appends, so the next commit restarts the WAL.
            if frames >= Self.writerCheckpointFrames {
                connection.checkpointWAL()
            }
        }
    }

    deinit {
        checkpointer.stop()
    }

    /// When the open transaction must commit, if one is open.
    var commitDeadline: Double? { transactionStart.map { $0 + options.commitInterval } }

    /// The earlier of the commit and index deadlines: when the writer thread must wake.
    var nextDeadline: Double? {
        switch (commitDeadline, indexDeadline) {
        case let (commit?, index?): min(commit, index)
        case let (commit, index): commit ?? index
        }
    }

    // MARK: Appending

    /// Validates `batch` against the expected seqs, then writes it into the open transaction, or
    /// reports why it cannot be written (nothing of it is stored then).
    func append(_ batch: PendingBatch) {
        let heads: [(session: Int64, next: Int64)]
        do throws(LogError) {
            heads = try validate(batch.events)
        } catch {
            batch.completion?(.failure(error))
            return
        }
        guard !batch.events.isEmpty else {
            batch.completion?(.success(()))
            return
        }
        do throws(LogError) {
            if transactionStart == nil {
                try connection.execute("BEGIN IMMEDIATE")
                transactionStart = MonotonicClock.seconds()
            }
            for event in batch.events { try insert(event) }
        } catch {
            recoverFromFailedInsert(of: batch, error)
            return
        }
        for head in heads { nextSeq[head.session] = head.next }
        pending.append(batch)
        pendingEventCount += batch.events.count
    }

    /// Checks that each event continues its session; returns each session's next seq after the
    /// batch. A batch rarely spans more than one session, so a short list beats a dictionary.
    private func validate(_ events: [EncodedEvent]) throws(LogError) -> [(session: Int64, next: Int64)] {
        var heads: [(session: Int64, next: Int64)] = []
        for event in events {
            let index = heads.firstIndex { $0.session == event.sessionID }
            let expected: Int64
            if let index { expected = heads[index].next } else { expected = try expectedSeq(session: event.sessionID) }
            guard event.seq == expected else {
                throw LogError(kind: .seqOutOfOrder(session: event.sessionID, expected: expected, found: event.seq),
                               message: "", path: connection.path)
            }
            if let index { heads[index].next = expected + 1 } else { heads.append((event.sessionID, expected + 1)) }
        }
        return heads
    }

    /// The seq `session` expects next, read from the file the first time.
    func expectedSeq(session: Int64) throws(LogError) -> Int64 {
        if let next = nextSeq[session] { return next }
        defer { loadSessionHead.reset() }
        try loadSessionHead.bind(session, at: 1)
        try loadSessionHead.step()
        guard loadSessionHead.int64(1) != 0 else {
            throw LogError(kind: .unknownSession(String(session)), message: "", path: connection.path)
        }
        let next = loadSessionHead.isNull(0) ? 0 : loadSessionHead.int64(0) + 1
        nextSeq[session] = next
        return next
    }

    private func insert(_ event: EncodedEvent) throws(LogError) {
        let statement = insertEvent
        try statement.bind(event.sessionID, at: 1)
        try statement.bind(event.seq, at: 2)
        try statement.bind(event.at, at: 3)
        try statement.bind(event.actionType, at: 4)
        try statement.bind(event.hash, at: 8)
        try statement.bind(event.durationNs, at: 9)
        try statement.bind(event.cause, at: 10)
        try statement.bind(Int64(event.coalesced ? 1 : 0), at: 11)
        try statement.withText(event.action, at: 5) { () throws(LogError) in
            try statement.withText(event.patch, at: 6) { () throws(LogError) in
                try statement.withText(event.inverse, at: 7) { () throws(LogError) in
                    try statement.step()
                }
            }
        }
        statement.reset()
        lastRowID = connection.lastInsertRowID
        if let keyframe = event.keyframe {
            try insertKeyframe.bind(event.sessionID, at: 1)
            try insertKeyframe.bind(event.seq, at: 2)
            try insertKeyframe.withText(keyframe, at: 3) { () throws(LogError) in try insertKeyframe.step() }
            insertKeyframe.reset()
        }
        if let nonFinite = event.nonFinite {
            try insertNonFinite.bind(event.sessionID, at: 1)
            try insertNonFinite.bind(event.seq, at: 2)
            try insertNonFinite.withText(nonFinite, at: 3) { () throws(LogError) in try insertNonFinite.step() }
            insertNonFinite.reset()
        }
        if let site = event.site {
            try insertSite.bind(event.sessionID, at: 1)
            try insertSite.bind(event.seq, at: 2)
            try insertSite.bind(site.file, at: 3)
            try insertSite.bind(Int64(site.line), at: 4)
            try insertSite.bind(site.function, at: 5)
            try insertSite.step()
            insertSite.reset()
        }
    }

    /// An insert failed although the batch was valid (the file changed under us, or I/O): the
    /// transaction is gone, so the failed batch is reported and the others are written again.
    private func recoverFromFailedInsert(of batch: PendingBatch, _ error: LogError) {
        let survivors = abandonTransaction()
        batch.completion?(.failure(error))
        for survivor in survivors { append(survivor) }
    }

    /// Rolls back and forgets the open transaction; returns the batches it held.
    private func abandonTransaction() -> [PendingBatch] {
        connection.rollback()
        let batches = pending
        pending = []
        pendingEventCount = 0
        transactionStart = nil
        lastRowID = nil
        // What the file holds is the truth again: reload seqs lazily.
        nextSeq = [:]
        return batches
    }

    // MARK: Committing

    /// Commits the open transaction, if any, then tells each batch's caller. The events it held
    /// are indexed for full-text search within ``LogWriter/Options/indexInterval``.
    func commit() {
        guard transactionStart != nil else { return }
        do throws(LogError) {
            try connection.execute("COMMIT")
        } catch {
            for batch in abandonTransaction() { batch.completion?(.failure(error)) }
            return
        }
        let batches = pending
        pending = []
        pendingEventCount = 0
        transactionStart = nil
        if let lastRowID { committedThrough = max(committedThrough, lastRowID) }
        lastRowID = nil
        if indexDeadline == nil, committedThrough != indexedThrough {
            indexDeadline = MonotonicClock.seconds() + options.indexInterval
        }
        queue.countCommit()
        for batch in batches { batch.completion?(.success(())) }
    }

    // MARK: Indexing

    /// Indexes every committed event the full-text index lacks, in one transaction of its own,
    /// and records how far the index reaches. Commits the open transaction first. On failure
    /// nothing of it is kept, the events stay stored, and it is tried again after
    /// ``LogWriter/Options/indexInterval``.
    func indexCommitted() throws(LogError) {
        commit()
        guard committedThrough != indexedThrough else {
            indexDeadline = nil
            return
        }
        do throws(LogError) {
            try connection.execute("BEGIN IMMEDIATE")
            try indexText.bind(indexedThrough, at: 1)
            try indexText.bind(committedThrough, at: 2)
            try indexText.step()
            indexText.reset()
            try saveIndexProgress.bind(committedThrough, at: 1)
            try saveIndexProgress.step()
            saveIndexProgress.reset()
            try connection.execute("COMMIT")
        } catch {
            indexText.reset()
            saveIndexProgress.reset()
            connection.rollback()
            indexDeadline = MonotonicClock.seconds() + options.indexInterval
            throw error
        }
        indexedThrough = committedThrough
        indexDeadline = nil
    }

    /// Reads how far the index reaches and the highest event rowid again, after a transaction
    /// that changed them (prune).
    func reloadIndexProgress() throws(LogError) {
        indexedThrough = try connection.scalarInt("SELECT id FROM rewind_fts_progress") ?? 0
        committedThrough = try connection.scalarInt("SELECT coalesce(max(id), 0) FROM events") ?? 0
        indexDeadline = committedThrough == indexedThrough ? nil : MonotonicClock.seconds()
    }
}
