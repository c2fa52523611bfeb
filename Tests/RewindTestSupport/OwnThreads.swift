import Foundation
import Testing
import RewindSupport

/// Runs a test's nonisolated code on threads of its own instead of Swift's shared pool.
///
/// The shared pool has one thread per core. A test that blocks a thread (waiting for a child
/// process, a socket, a condition) or computes for seconds holds one of them, and when every one
/// is held, no other test's task, no server queue of an in-process server and no `Task.sleep`
/// wakes until one is let go: the test process's pool stalled for up to 35 s that way here (about
/// 85 s in CI), and a test elsewhere waiting 5 s for its own work failed. Every suite carries this
/// trait, so the pool is left to the code under test; tests still run in parallel.
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            return try await function()
        }
        try await withTaskExecutorPreference(ThreadPerTaskExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreads {
    /// Runs the suite's or test's nonisolated code on threads of its own (``OwnThreads``).
    public static var ownThreads: OwnThreads { OwnThreads() }
}

/// A task executor that runs each job on an idle thread of its own, starting a thread when none is
/// idle: a job that blocks holds only its thread. (Task executors need macOS 15 or iOS 18; older
/// Apple systems run the tests on the shared pool, as before.)
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class ThreadPerTaskExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = ThreadPerTaskExecutor()

    private final class Worker: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        var job: UnownedJob?
    }

    private let lock = Mutex()
    private var idle: [Worker] = []

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let worker: Worker? = lock.withLock { idle.popLast() }
        if let worker {
            worker.job = unowned
            worker.wake.signal()
            return
        }
        let fresh = Worker()
        fresh.job = unowned
        startThread(named: "test-own-thread") { [self] in run(fresh) }
    }

    private func run(_ worker: Worker) {
        while true {
            if let job = worker.job {
                worker.job = nil
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            lock.withLock { idle.append(worker) }
            worker.wake.wait()
        }
    }
}

/// Starts a thread that, like libdispatch's own threads, takes none of the process's asynchronous
/// signals. A signal meant for the process (a child's SIGCHLD, once anything handles it) would
/// otherwise interrupt whatever call this thread is blocked in, and Foundation's `FileHandle`
/// reads stop the process on an interrupted call (seen with Foundation's `Process` in use).
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        var signals = sigset_t()
        sigfillset(&signals)
        for synchronous in [SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV, SIGSYS] { sigdelset(&signals, synchronous) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        body()
    }
    thread.name = name
    thread.stackSize = 8 << 20
    thread.start()
}
