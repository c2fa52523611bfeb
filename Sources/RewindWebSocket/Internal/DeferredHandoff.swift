import CLibWebSockets
import Foundation
import RewindSupport

/// Where the threads running ``HTTPResponse/deferred(_:)`` producers leave their results for the
/// service thread: they append under the lock and wake the service wait; the service thread takes
/// the list in `LWS_CALLBACK_EVENT_WAIT_CANCELLED`. Results carry the request's generation, never
/// a `wsi`, so no other thread holds an lws pointer, and a result whose connection has closed (and
/// whose `wsi` may already belong to a new connection) finds no pending request and is dropped.
///
/// Streamed bodies use it too: their producers announce, by generation, that bytes (or the end)
/// wait to be sent, and the service thread asks for a writable callback for each.
final class DeferredHandoff: @unchecked Sendable {
    struct Finished {
        var generation: UInt64
        var response: HTTPResponse
    }

    private struct State {
        var finished: [Finished] = []
        /// Streams with bytes (or their end) waiting, by generation.
        var ready: [UInt64] = []
        var closed = false
    }

    private let state = Mutex(State())
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

    /// Runs a streamed response's `body` on a new thread with `writer`, then ends the stream:
    /// finished when `body` returns, failed when it throws.
    func runBody(_ streamer: HTTPResponseStreamer, writer: HTTPBodyWriter, meter: HTTPStreamMeter) {
        meter.producerStarted()
        let thread = Thread {
            Thread.current.name = "rewind-ws-body"  // from inside, so that the system sees it
            // And through the system's own call: the export benchmark counts export threads by
            // this name (Docs/BenchmarkHistory.md, "Export memory").
            rewind_set_thread_name("rewind-ws-body")
            do {
                try streamer.body(writer)
                writer.finish()
            } catch {
                writer.fail()
            }
            meter.producerEnded()
        }
        thread.start()
    }


    /// Says that stream `generation` has bytes or its end waiting (a producer thread); only the
    /// first announcement since the service thread last looked interrupts its wait.
    func announce(_ generation: UInt64) {
        let wake = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.ready.append(generation)
            return state.ready.count == 1 && state.finished.isEmpty
        }
        if wake { waker.wake() }
    }

    /// The results handed over and the streams announced since the last call (service thread),
    /// taken together so that an announcement that did not wake the thread is never left behind.
    func take() -> (finished: [Finished], ready: [UInt64]) {
        state.withLock { state in
            let taken = (state.finished, state.ready)
            state.finished.removeAll()
            state.ready.removeAll()
            return taken
        }
    }

    /// Drops what is waiting and whatever arrives later: the service thread is ending.
    func close() {
        state.withLock { state in
            state.closed = true
            state.finished.removeAll()
            state.ready.removeAll()
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
