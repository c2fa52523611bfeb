extension WriterEngine {
    /// The writer thread's loop: take jobs, write, commit on time, stop on `.stop`.
    static func run(_ engine: WriterEngine) {
        while true {
            let jobs = engine.queue.take(until: engine.commitDeadline)
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
                    engine.commit()
                    return
                }
            }
            if let deadline = engine.commitDeadline, MonotonicClock.now() >= deadline { engine.commit() }
        }
    }
}
