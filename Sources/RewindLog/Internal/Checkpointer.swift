import Foundation

/// Copies the write-ahead log into the main file on its own thread and connection.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses the threshold, so that one
/// commit pays for copying ~4 MB of pages and two fsyncs. The writer turns it off and asks this
/// helper instead; a PASSIVE checkpoint never blocks the writer or readers, and the WAL restarts
/// from its beginning at the next write once a checkpoint has caught up. It writes no log data:
/// the log still has one writer.
final class Checkpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private var finished = false

    init(path: String) {
        let thread = Thread { [self] in
            Thread.current.name = "rewind-wal-ckpt"  // from inside, so that the system sees it
            run(path: path)
        }
        thread.start()
    }

    /// Asks for a checkpoint soon; cheap enough to call after every commit.
    func request() {
        condition.lock()
        if !requested {
            requested = true
            condition.signal()
        }
        condition.unlock()
    }

    /// Stops the thread and waits for it; the writer's own close checkpoints what is left.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run(path: String) {
        do {
            let connection = try? Connection(path: path, flags: [.readWrite], serialized: false)
            try? connection?.execute("PRAGMA synchronous=NORMAL")
            while let connection, waitForRequest() {
                connection.checkpointWAL()
            }
            if connection == nil { waitForStop() }
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// `false` when stopping.
    private func waitForRequest() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !requested && !stopping { condition.wait() }
        requested = false
        return !stopping
    }

    private func waitForStop() {
        condition.lock()
        while !stopping { condition.wait() }
        condition.unlock()
    }
}
