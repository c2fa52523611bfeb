import Foundation
import RewindSupport

/// Copies the write-ahead log into the main file on its own thread and connection.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses the threshold, so that one
/// commit pays for copying ~4 MB of pages and two fsyncs. The writer turns it off and asks this
/// helper instead; a PASSIVE checkpoint never blocks the writer or readers, and the WAL restarts
/// from its beginning at the next write once a checkpoint has caught up. It writes no log data:
/// the log still has one writer.
final class Checkpointer: @unchecked Sendable {
    private struct State {
        var requested = false
        var stopping = false
        var finished = false
    }

    private let state = Condition(State())

    init(path: String) {
        let thread = Thread { [self] in
            Thread.current.name = "rewind-wal-ckpt"  // from inside, so that the system sees it
            run(path: path)
        }
        thread.start()
    }

    /// Asks for a checkpoint soon; cheap enough to call after every commit.
    func request() {
        state.update { state, waking in
            if !state.requested {
                state.requested = true
                waking = .one
            }
        }
    }

    /// Stops the thread and waits for it; the writer's own close checkpoints what is left.
    func stop() {
        state.update(waking: .one) { $0.stopping = true }
        _ = state.wait(for: { $0.finished })
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
        state.update(waking: .all) { $0.finished = true }
    }

    /// `false` when stopping.
    private func waitForRequest() -> Bool {
        // Without a deadline the wait ends only once the predicate holds.
        let stopping = state.withLock(when: { $0.requested || $0.stopping }) { state in
            state.requested = false
            return state.stopping
        } ?? true
        return !stopping
    }

    private func waitForStop() {
        _ = state.wait(for: { $0.stopping })
    }
}
