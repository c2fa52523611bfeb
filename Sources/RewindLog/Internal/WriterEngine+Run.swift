import RewindSupport

extension WriterEngine {
    /// The writer thread's loop: take jobs, write, commit on time, stop on `.stop`.
    static func run(_ engine: WriterEngine) {
        while true {
            let jobs = engine.queue.take(until: engine.nextDeadline, wakeOnAppend: engine.commitDeadline == nil)
            for job in jobs {
                switch job {
                case .append(let batch):
                    engine.append(batch)
                    if engine.pendingEventCount >= engine.options.maxEventsPerCommit { engine.commit() }
                case .call(let body):
                    // Synchronous calls see, and make, committed state.
                    engine.commit()
                    body(engine)
                case .stop:
                    // A failure leaves the rest to the next writer, which indexes first.
                    try? engine.indexCommitted()
                    return
                }
            }
            let now = MonotonicClock.seconds()
            if let deadline = engine.commitDeadline, now >= deadline { engine.commit() }
            // A failure is tried again after the interval; the events themselves are committed.
            if let deadline = engine.indexDeadline, now >= deadline { try? engine.indexCommitted() }
        }
    }
}
