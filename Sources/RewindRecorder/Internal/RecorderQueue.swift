import Foundation
import RewindJSON
import RewindSupport

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

    /// Everything that changes, under one lock. Only the consumer waits on it: for work, while
    /// it polls or sleeps.
    @usableFromInline
    struct Shared {
        @usableFromInline var pending: [Entry] = []
        @usableFromInline var snapshots = 0
        @usableFromInline var nextSeq: Int64 = 1
        @usableFromInline var paused = false
        @usableFromInline var gap = false
        @usableFromInline var closed = false
        var stopRequested = false
        var waiters: [DispatchSemaphore] = []
        @usableFromInline var consumer = Consumer.busy
        @usableFromInline var droppedCount = 0
        @usableFromInline var pushedCount = 0

        init() {}

        /// Whether the consumer has something to do.
        var hasWork: Bool { !pending.isEmpty || !waiters.isEmpty || stopRequested }

        /// The seq of the next event, or `nil` when paused (the gap is noted) or closed.
        @inlinable
        mutating func takeSeq() -> Int64? {
            if closed || paused {
                if paused { gap = true }
                return nil
            }
            defer { nextSeq += 1 }
            return nextSeq
        }

        /// Appends `entry`; `true` when the consumer sleeps and must be woken (it is marked busy
        /// here, so one push wakes it).
        @inlinable
        mutating func enqueue(_ entry: Entry) -> Bool {
            pending.append(entry)
            gap = false
            pushedCount += 1
            guard consumer == .sleeping else { return false }
            consumer = .busy
            return true
        }

        /// Asks the consumer to come at once (a flush or a stop); `nil` when closed.
        mutating func addWaiter(stopping: Bool) -> DispatchSemaphore? {
            guard !closed else { return nil }
            if stopping { stopRequested = true }
            let semaphore = DispatchSemaphore(value: 0)
            waiters.append(semaphore)
            consumer = .busy
            return semaphore
        }
    }

    @usableFromInline let capacity: Int
    @usableFromInline let shared = Condition(Shared())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends one action and its state; returns its seq, or `nil` when paused or closed.
    @inlinable
    func push(_ action: Action, state: State, at: Date, durationNs: Int64, cause: Int64?, site: SendSite?,
              skipped: Bool = false) -> Int64? {
        let capacity = capacity
        return shared.update { shared, waking in
            guard let seq = shared.takeSeq() else { return nil }
            let full = shared.snapshots >= capacity
            if full, let last = shared.pending.indices.last, shared.pending[last].overflow, shared.pending[last].state != nil {
                shared.pending[last].state = nil
                shared.droppedCount += 1
            } else {
                shared.snapshots += 1
            }
            var entry = Entry(seq: seq, at: at, action: action, state: state, durationNs: durationNs,
                              cause: cause, site: site, afterGap: shared.gap, overflow: full)
            entry.skipped = skipped
            if shared.enqueue(entry) { waking = .one }
            return seq
        }
    }

    /// Appends a marker event (``Entry/marker``) with the state it leaves; returns its seq, or
    /// `nil` when paused or closed.
    func pushMarker(_ marker: JSONValue, state: State, at: Date) -> Int64? {
        shared.update { shared, waking in
            guard let seq = shared.takeSeq() else { return nil }
            shared.snapshots += 1
            var entry = Entry(seq: seq, at: at, action: nil, state: state, durationNs: 0, cause: nil, site: nil,
                              afterGap: shared.gap, overflow: false)
            entry.marker = marker
            if shared.enqueue(entry) { waking = .one }
            return seq
        }
    }

    /// Waits for work and swaps it into `entries` (which must be empty).
    func take(into entries: inout [Entry]) -> Batch {
        var polls = 0
        while true {
            let sleeping = polls >= Self.pollsBeforeSleeping
            let batch = shared.withLock { shared -> Batch? in
                guard shared.hasWork else {
                    shared.consumer = sleeping ? .sleeping : .polling
                    return nil
                }
                shared.consumer = .busy
                swap(&shared.pending, &entries)
                defer { shared.waiters = [] }
                return Batch(flushWaiters: shared.waiters, stop: shared.stopRequested)
            }
            if let batch { return batch }
            // The wait looks for work again under its own hold of the lock, so a push or a flush
            // that came in between is not missed. While polling, pushes do not signal: the poll
            // interval ends the wait.
            _ = shared.wait(for: \.hasWork, deadline: sleeping ? nil : MonotonicClock.deadline(after: Self.pollInterval))
            polls += 1
        }
    }

    /// The consumer has let go of `count` snapshots.
    func released(_ count: Int) {
        shared.withLock { $0.snapshots -= count }
    }

    /// A semaphore signalled once everything pushed before is written and flushed; `nil` when
    /// the queue is closed (nothing more will be written).
    func requestFlush() -> DispatchSemaphore? {
        shared.update { shared, waking in
            let semaphore = shared.addWaiter(stopping: false)
            if semaphore != nil { waking = .one }
            return semaphore
        }
    }

    /// Asks the consumer to write what is queued, end the session and stop; the semaphore is
    /// signalled when it has (`nil` when already closed).
    @discardableResult
    func requestStop() -> DispatchSemaphore? {
        shared.update { shared, waking in
            let semaphore = shared.addWaiter(stopping: true)
            if semaphore != nil { waking = .one }
            return semaphore
        }
    }

    /// No more pushes are accepted; pending entries are dropped and flush waiters released.
    func close() {
        let released = shared.withLock { shared in
            shared.closed = true
            shared.pending = []
            shared.snapshots = 0
            defer { shared.waiters = [] }
            return shared.waiters
        }
        for waiter in released { waiter.signal() }
    }

    /// The state changed without an action (a replay set it): the next event is coalesced.
    func markGap() {
        shared.withLock { $0.gap = true }
    }

    func setPaused(_ value: Bool) {
        shared.withLock { $0.paused = value }
    }

    var isPaused: Bool { shared.withLock { $0.paused } }
    var isClosed: Bool { shared.withLock { $0.closed } }
    /// Snapshots dropped because the queue was full.
    var dropped: Int { shared.withLock { $0.droppedCount } }
    /// Actions accepted.
    var pushed: Int { shared.withLock { $0.pushedCount } }
}
