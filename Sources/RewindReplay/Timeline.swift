import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// One recorded session as a sequence of states: the state after any seq, the difference between
/// two seqs, which events changed a path, and a check of the whole record.
///
/// A state is rebuilt from the cheapest start: the nearest keyframe (forward patches from the one
/// at or before the seq, or inverse patches back from the one after it), or a state rebuilt
/// earlier and kept in a small LRU cache, so stepping through neighbouring seqs applies one patch
/// per step. Patches are applied in place; the states share what they did not change.
///
/// ```swift
/// let timeline = try Timeline(path: "/tmp/rewind.db", session: "latest")
/// let before = try timeline.state(at: 41)
/// let changes = try timeline.diff(from: 41, to: 42).changes
/// let history = try timeline.blame(path: JSONPointer("/user/name"))
/// ```
///
/// Calls are serialized by a lock, so one timeline may be shared between threads. A live session
/// grows under it: every call sees the events stored when it starts.
public final class Timeline: @unchecked Sendable {
    /// The log the session is read from.
    public let reader: LogReader
    /// The session's id.
    public let sessionID: Int64
    /// The cache bounds.
    public let options: Options

    /// What rebuilding keeps from call to call; its lock serializes the calls.
    let memo: Mutex<Memo>

    struct Memo {
        var cache: StateCache
        /// The size of the last state rebuilt: what planning assumes a keyframe costs to load.
        var stateBytesEstimate = 0
        /// How the last state that was not in the cache was rebuilt (for tests).
        var lastPlan: RebuildPlan?
        /// The highest seq known to be stored: seqs up to it need no range check (the log only grows).
        var knownLastSeq: Int64 = -1
        /// Two keyframes with none between them (`before ≤ after`): seqs between them need no probe.
        var keyframeBracket: (before: Int64, after: Int64)?
    }

    /// A timeline over session `session` of `reader`; throws when there is no such session.
    public init(reader: LogReader, session: Int64, options: Options = Options()) throws(ReplayError) {
        let exists = try readingLog { () throws(LogError) in try reader.sessionExists(id: session) }
        guard exists else {
            throw .log(LogError(kind: .unknownSession(String(session)), message: "", path: reader.path))
        }
        self.reader = reader
        self.sessionID = session
        self.options = options
        self.memo = Mutex(Memo(cache: StateCache(maxEntries: options.cacheEntries, maxBytes: options.cacheBytes)))
    }

    /// A timeline over the session named `session` (an id, a uuid prefix or `latest`) of the log
    /// at `path`.
    public convenience init(path: String, session: String, options: Options = Options()) throws(ReplayError) {
        let reader = try readingLog { () throws(LogError) in try LogReader(path: path) }
        let info = try readingLog { () throws(LogError) in try reader.session(named: session) }
        try self.init(reader: reader, session: info.id, options: options)
    }

    /// The last stored seq, `nil` while the session has no events.
    public func lastSeq() throws(ReplayError) -> Int64? {
        try readingLog { () throws(LogError) in try reader.lastSeq(session: sessionID) }
    }

    /// The state after event `seq`.
    ///
    /// Throws ``ReplayError/seqOutOfRange(session:seq:lastSeq:)`` for a seq that is not stored,
    /// and ``ReplayError/brokenChain(session:seq:reason:)`` when the stored patches do not rebuild it.
    public func state(at seq: Int64) throws(ReplayError) -> JSONValue {
        try locked { memo throws(ReplayError) in try rebuiltState(at: seq, memo: &memo) }
    }

    /// What changed from the state after `from` to the state after `to` (either may be the larger).
    ///
    /// ```swift
    /// for change in try timeline.diff(from: 3, to: 10).changes { print(change) }
    /// ```
    public func diff(from: Int64, to: Int64) throws(ReplayError) -> JSONDiff {
        try locked { memo throws(ReplayError) in
            let a = try rebuiltState(at: from, memo: &memo)
            let b = try rebuiltState(at: to, memo: &memo)
            // States rebuilt from one another share their untouched subtrees, which the diff skips.
            return JSONDiff(from: a, to: b)
        }
    }

    /// Forgets every cached state (the next call starts from a keyframe).
    public func clearCache() {
        memo.withLock { $0.cache.removeAll() }
    }

    /// The seqs whose states are cached, ascending.
    var cachedSeqs: [Int64] {
        memo.withLock { $0.cache.entries.keys.sorted() }
    }

    /// How the last state that was not in the cache was rebuilt (for tests).
    var lastPlan: RebuildPlan? {
        memo.withLock { $0.lastPlan }
    }

    /// Runs `body` under the timeline's lock. `Mutex.withLock` rethrows `any Error`; the Result
    /// carries a ``ReplayError`` out of it typed.
    func locked<R>(_ body: (inout Memo) throws(ReplayError) -> R) throws(ReplayError) -> R {
        try memo.withLock { memo in Result { () throws(ReplayError) -> R in try body(&memo) } }.get()
    }
}
