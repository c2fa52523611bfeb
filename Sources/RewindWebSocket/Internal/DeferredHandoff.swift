import Foundation

/// Where the threads running ``HTTPResponse/deferred(_:)`` producers leave their results for the
/// service thread: they append under the lock and wake the service wait; the service thread takes
/// the list in `LWS_CALLBACK_EVENT_WAIT_CANCELLED`. Results carry the request's generation, never
/// a `wsi`, so no other thread holds an lws pointer, and a result whose connection has closed (and
/// whose `wsi` may already belong to a new connection) finds no pending request and is dropped.
final class DeferredHandoff: @unchecked Sendable {
    struct Finished {
        var generation: UInt64
        var response: HTTPResponse
    }

    private struct State {
        var finished: [Finished] = []
        var closed = false
    }

    private let state = Locked(State())
    private let waker: ServiceWaker

    init(waker: ServiceWaker) {
        self.waker = waker
    }

    /// Runs `producer` on a new thread and hands its result over. A thread of its own rather than
    /// a shared queue: producers may block for long, and Swift concurrency shares the global
    /// queues' few threads.
    func run(_ producer: HTTPResponseProducer, generation: UInt64) {
        let thread = Thread { [self] in
            Thread.current.name = "rewind-ws-http"  // from inside, so that the system sees it
            let response = producer.produce()
            deliver(Finished(generation: generation, response: response))
        }
        thread.start()
    }

    /// The results handed over since the last call (service thread).
    func take() -> [Finished] {
        state.withLock { state in
            let finished = state.finished
            state.finished.removeAll()
            return finished
        }
    }

    /// Drops what is waiting and whatever arrives later: the service thread is ending.
    func close() {
        state.withLock { state in
            state.closed = true
            state.finished.removeAll()
        }
    }

    private func deliver(_ finished: Finished) {
        let open = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.finished.append(finished)
            return true
        }
        if open { waker.wake() }
    }
}
