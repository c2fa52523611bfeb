import Foundation
import RewindSupport

/// The hand-over between callers and the writer thread: a job list under one condition lock.
final class WriterQueue: @unchecked Sendable {
    enum Job: Sendable {
        case append(PendingBatch)
        case call(@Sendable (WriterEngine) -> Void)
        case stop
    }

    private struct State {
        var jobs: [Job] = []
        var accepting = true
        var finished = false
        var commits = 0
        /// Events in queued appends, and queued jobs that are not appends (calls, stop).
        var queuedEvents = 0
        var urgentJobs = 0
        /// `true` while the writer sleeps until its commit deadline: appends then accumulate here
        /// without waking it, unless they reach `wakeThreshold` events.
        var writerWaitsForDeadline = false
        /// The writer thread, recorded when it starts and forgotten before it ends: glibc hands a
        /// dead thread's `pthread_t` to the next thread it starts, which must not pass for it.
        var writerThread: pthread_t?

        /// Takes every queued job.
        mutating func takeJobs() -> [Job] {
            let taken = jobs
            jobs = []
            queuedEvents = 0
            urgentJobs = 0
            return taken
        }
    }

    private let state = Condition(State())
    private let wakeThreshold: Int

    init(wakeThreshold: Int) {
        self.wakeThreshold = wakeThreshold
    }

    /// Adds a job; `false` once the writer is closing.
    func push(_ job: Job) -> Bool {
        state.update { state, waking in
            guard state.accepting else { return false }
            state.jobs.append(job)
            if case .append(let batch) = job {
                state.queuedEvents += batch.events.count
                // The writer will come for them by its deadline: waking it per append would cost a
                // context switch per event.
                if state.writerWaitsForDeadline && state.queuedEvents < wakeThreshold { return true }
            } else {
                if case .stop = job { state.accepting = false }
                state.urgentJobs += 1
            }
            waking = .one
            return true
        }
    }

    /// The jobs waiting. With no `deadline` it waits for the first job; with one it waits until
    /// the deadline (``MonotonicClock`` seconds) unless a call arrives, `wakeThreshold` events are
    /// queued, or — when `wakeOnAppend` (no open transaction, whose commit clock the first append
    /// starts) — any job arrives.
    func take(until deadline: Double?, wakeOnAppend: Bool) -> [Job] {
        guard let deadline else {
            return state.withLock(when: { !$0.jobs.isEmpty }) { $0.takeJobs() } ?? []
        }
        // Set before the wait, which looks at the jobs first under its own hold of the lock: an
        // urgent job pushed in between is seen there, and an append below the threshold needs
        // no wake-up.
        state.withLock { $0.writerWaitsForDeadline = !wakeOnAppend }
        let wakeThreshold = wakeThreshold
        _ = state.wait(for: { state in
            state.urgentJobs > 0 || state.queuedEvents >= wakeThreshold || (wakeOnAppend && !state.jobs.isEmpty)
        }, deadline: Int64(deadline * 1e9))
        return state.withLock { state in
            state.writerWaitsForDeadline = false
            return state.takeJobs()
        }
    }

    /// Records the calling thread as the writer thread.
    func registerWriterThread() {
        let me = pthread_self()
        state.withLock { $0.writerThread = me }
    }

    /// `true` on the writer thread: a completion there must not wait for the writer.
    var isWriterThread: Bool {
        let me = pthread_self()
        return state.withLock { state in
            guard let writerThread = state.writerThread else { return false }
            return pthread_equal(writerThread, me) != 0
        }
    }

    /// Called by the writer thread after its connection is closed (and so while it still runs).
    func markFinished() {
        state.update(waking: .all) { state in
            state.writerThread = nil
            state.accepting = false
            state.finished = true
        }
    }

    /// Returns once the writer thread has finished.
    func waitUntilFinished() {
        _ = state.wait(for: { $0.finished })
    }

    func countCommit() {
        state.withLock { $0.commits += 1 }
    }

    var commitCount: Int {
        state.withLock { $0.commits }
    }
}
