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

    /// Adds a job; `false` once the writer is closing.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard accepting else { return false }
        if case .stop = job { accepting = false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Every job waiting, after waiting for one until `deadline` (monotonic seconds) or forever.
    func take(until deadline: Double?) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty {
            if let deadline {
                let remaining = deadline - MonotonicClock.now()
                if remaining <= 0 { return [] }
                _ = condition.wait(until: Date(timeIntervalSinceNow: remaining))
            } else {
                condition.wait()
            }
        }
        let taken = jobs
        jobs = []
        return taken
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

/// Monotonic seconds, for commit deadlines that wall-clock changes cannot move.
enum MonotonicClock {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Carries one synchronous call's result from the writer thread back to its caller.
final class CallResult<T: Sendable>: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    // Written once on the writer thread before `signal`, read after `wait`: the semaphore orders them.
    private var result: Result<T, LogError>?

    func fulfil(_ result: Result<T, LogError>) {
        self.result = result
        semaphore.signal()
    }

    func wait() -> Result<T, LogError> {
        semaphore.wait()
        return result!
    }
}
