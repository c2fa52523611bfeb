import Foundation

/// The hand-over between callers and the writer thread: a job list under one condition lock.
final class WriterQueue: @unchecked Sendable {
    enum Job: Sendable {
        case append(PendingBatch)
        case call(@Sendable (WriterEngine) -> Void)
        case stop
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var accepting = true
    private var finished = false
    private var commits = 0
    /// Events in queued appends, and queued jobs that are not appends (calls, stop).
    private var queuedEvents = 0
    private var urgentJobs = 0
    /// `true` while the writer sleeps until its commit deadline: appends then accumulate here
    /// without waking it, unless they reach `wakeThreshold` events.
    private var writerWaitsForDeadline = false
    private let wakeThreshold: Int

    init(wakeThreshold: Int) {
        self.wakeThreshold = wakeThreshold
    }

    /// Adds a job; `false` once the writer is closing.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard accepting else { return false }
        jobs.append(job)
        if case .append(let batch) = job {
            queuedEvents += batch.events.count
            // The writer will come for them by its deadline: waking it per append would cost a
            // context switch per event.
            if writerWaitsForDeadline && queuedEvents < wakeThreshold { return true }
        } else {
            if case .stop = job { accepting = false }
            urgentJobs += 1
        }
        condition.signal()
        return true
    }

    /// The jobs waiting. With no `deadline` it waits for the first job; with one it waits until
    /// the deadline (monotonic seconds) unless a call arrives, `wakeThreshold` events are queued,
    /// or — when `wakeOnAppend` (no open transaction, whose commit clock the first append starts) —
    /// any job arrives.
    func take(until deadline: Double?, wakeOnAppend: Bool) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        if let deadline {
            while urgentJobs == 0 && queuedEvents < wakeThreshold && !(wakeOnAppend && !jobs.isEmpty) {
                let remaining = deadline - MonotonicClock.now()
                if remaining <= 0 { break }
                writerWaitsForDeadline = !wakeOnAppend
                _ = condition.wait(until: Date(timeIntervalSinceNow: remaining))
                writerWaitsForDeadline = false
            }
        } else {
            while jobs.isEmpty { condition.wait() }
        }
        let taken = jobs
        jobs = []
        queuedEvents = 0
        urgentJobs = 0
        return taken
    }

    /// The writer thread, recorded when it starts.
    private var writerThread: pthread_t?

    /// Records the calling thread as the writer thread.
    func registerWriterThread() {
        condition.lock()
        writerThread = pthread_self()
        condition.unlock()
    }

    /// `true` on the writer thread: a completion there must not wait for the writer.
    var isWriterThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let writerThread else { return false }
        return pthread_equal(writerThread, pthread_self()) != 0
    }

    /// Called by the writer thread after its connection is closed.
    func markFinished() {
        condition.lock()
        accepting = false
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the writer thread has finished.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    func countCommit() {
        condition.lock()
        commits += 1
        condition.unlock()
    }

    var commitCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return commits
    }
}
