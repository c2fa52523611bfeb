import Foundation
import RewindJSON

/// The bounded hand-off between the dispatch path and the recorder's thread.
///
/// `push` takes a lock, appends and returns: no allocation beyond the array's amortised growth,
/// no encoding, and no system call while the consumer is awake or polling. The consumer polls
/// every ``pollInterval`` for a while after its last work and only then sleeps; a push finds it
/// asleep only after a quiet spell, and then wakes it.
///
/// The bound is on snapshots: when ``capacity`` of them are waiting, a push still appends its
/// action, but the snapshot of the previous push made while full is dropped, so the newest state
/// is always recorded and the ones in between are coalesced.
///
/// `push` is `@inlinable` so that it is specialised for the app's `State` and `Action` where the
/// store is attached: unspecialised generic code pays value-witness calls and metadata lookups
/// on every send.
@usableFromInline
final class RecorderQueue<State, Action>: @unchecked Sendable {
    @usableFromInline
    struct Entry {
        @usableFromInline var seq: Int64
        @usableFromInline var at: Date
        /// `nil` for a marker (``marker``).
        @usableFromInline var action: Action?
        /// An event that is no action of the app's (`@@rewind/replayed`, a replay setting the
        /// state): recorded as this JSON instead of an encoded action.
        @usableFromInline var marker: JSONValue?
        /// `nil` once the snapshot was dropped.
        @usableFromInline var state: State?
        @usableFromInline var durationNs: Int64
        @usableFromInline var cause: Int64?
        @usableFromInline var site: SendSite?
        /// A branch left this action out: it is recorded as `{"type": "@@rewind/skipped", "action": …}`.
        @usableFromInline var skipped = false
        /// Recording was paused before this action: states are missing before it.
        @usableFromInline var afterGap: Bool
        /// Pushed while the queue was full: its snapshot may be dropped by the next push.
        @usableFromInline var overflow: Bool

        @inlinable
        init(seq: Int64, at: Date, action: Action?, state: State?, durationNs: Int64, cause: Int64?,
             site: SendSite?, afterGap: Bool, overflow: Bool) {
            self.seq = seq
            self.at = at
            self.action = action
            self.state = state
            self.durationNs = durationNs
            self.cause = cause
            self.site = site
            self.afterGap = afterGap
            self.overflow = overflow
        }
    }

    /// What the consumer takes in one go.
    struct Batch {
        var flushWaiters: [DispatchSemaphore] = []
        var stop = false
    }

    @usableFromInline
    enum Consumer { case busy, polling, sleeping }

    static var pollInterval: Double { 0.002 }
    static var pollsBeforeSleeping: Int { 100 }

    @usableFromInline let capacity: Int
    @usableFromInline let condition = NSCondition()
    // Everything below is guarded by `condition`.
    @usableFromInline var pending: [Entry] = []
    @usableFromInline var snapshots = 0
    @usableFromInline var nextSeq: Int64 = 1
    @usableFromInline var paused = false
    @usableFromInline var gap = false
    @usableFromInline var closed = false
    private var stopRequested = false
    private var waiters: [DispatchSemaphore] = []
    @usableFromInline var consumer = Consumer.busy
    @usableFromInline var droppedCount = 0
    @usableFromInline var pushedCount = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends one action and its state; returns its seq, or `nil` when paused or closed.
    @inlinable
    func push(_ action: Action, state: State, at: Date, durationNs: Int64, cause: Int64?, site: SendSite?,
              skipped: Bool = false) -> Int64? {
        condition.lock()
        if closed || paused {
            if paused { gap = true }
            condition.unlock()
            return nil
        }
        let seq = nextSeq
        nextSeq += 1
        let full = snapshots >= capacity
        if full, let last = pending.indices.last, pending[last].overflow, pending[last].state != nil {
            pending[last].state = nil
            droppedCount += 1
        } else {
            snapshots += 1
        }
        var entry = Entry(seq: seq, at: at, action: action, state: state, durationNs: durationNs,
                          cause: cause, site: site, afterGap: gap, overflow: full)
        entry.skipped = skipped
        enqueueLocked(entry)
        return seq
    }

    /// With the lock held: appends `entry`, wakes the consumer if it sleeps, and unlocks.
    @inlinable
    func enqueueLocked(_ entry: Entry) {
        pending.append(entry)
        gap = false
        pushedCount += 1
        if consumer == .sleeping {
            consumer = .busy
            condition.signal()
        }
        condition.unlock()
    }

    /// Appends a marker event (``Entry/marker``) with the state it leaves; returns its seq, or
    /// `nil` when paused or closed.
    func pushMarker(_ marker: JSONValue, state: State, at: Date) -> Int64? {
        condition.lock()
        if closed || paused {
            if paused { gap = true }
            condition.unlock()
            return nil
        }
        let seq = nextSeq
        nextSeq += 1
        snapshots += 1
        var entry = Entry(seq: seq, at: at, action: nil, state: state, durationNs: 0, cause: nil, site: nil,
                          afterGap: gap, overflow: false)
        entry.marker = marker
        enqueueLocked(entry)
        return seq
    }

    /// Waits for work and swaps it into `entries` (which must be empty).
    func take(into entries: inout [Entry]) -> Batch {
        condition.lock()
        defer { condition.unlock() }
        var polls = 0
        while pending.isEmpty && waiters.isEmpty && !stopRequested {
            if polls < Self.pollsBeforeSleeping {
                consumer = .polling
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.pollInterval))
                polls += 1
            } else {
                consumer = .sleeping
                condition.wait()
            }
        }
        consumer = .busy
        swap(&pending, &entries)
        let batch = Batch(flushWaiters: waiters, stop: stopRequested)
        waiters = []
        return batch
    }

    /// The consumer has let go of `count` snapshots.
    func released(_ count: Int) {
        condition.lock()
        snapshots -= count
        condition.unlock()
    }

    /// A semaphore signalled once everything pushed before is written and flushed; `nil` when
    /// the queue is closed (nothing more will be written).
    func requestFlush() -> DispatchSemaphore? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return nil }
        let semaphore = DispatchSemaphore(value: 0)
        waiters.append(semaphore)
        consumer = .busy
        condition.signal()
        return semaphore
    }

    /// Asks the consumer to write what is queued, end the session and stop; the semaphore is
    /// signalled when it has (`nil` when already closed).
    @discardableResult
    func requestStop() -> DispatchSemaphore? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return nil }
        stopRequested = true
        let semaphore = DispatchSemaphore(value: 0)
        waiters.append(semaphore)
        consumer = .busy
        condition.signal()
        return semaphore
    }

    /// No more pushes are accepted; pending entries are dropped and flush waiters released.
    func close() {
        condition.lock()
        closed = true
        pending = []
        snapshots = 0
        let released = waiters
        waiters = []
        condition.unlock()
        for waiter in released { waiter.signal() }
    }

    /// The state changed without an action (a replay set it): the next event is coalesced.
    func markGap() {
        condition.lock()
        gap = true
        condition.unlock()
    }

    func setPaused(_ value: Bool) {
        condition.lock()
        paused = value
        condition.unlock()
    }

    var isPaused: Bool { withLock { paused } }
    var isClosed: Bool { withLock { closed } }
    /// Snapshots dropped because the queue was full.
    var dropped: Int { withLock { droppedCount } }
    /// Actions accepted.
    var pushed: Int { withLock { pushedCount } }

    private func withLock<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
