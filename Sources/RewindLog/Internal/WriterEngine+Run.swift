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
                    // Merge the write-ahead log into the file and empty it, so that the file
                    // alone holds the log once the writer is gone (`rewind stats`, a copy). A
                    // reader in a transaction just leaves part of it for the next writer.
                    try? engine.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
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
