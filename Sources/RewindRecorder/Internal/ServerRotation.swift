import Foundation

/// Which of a link's servers (equivalent ones: instances on one database) the next attempt goes
/// to, and how long it waits first.
///
/// Within a round (every server tried once since the last wait) the next server is tried at
/// once after a failed connect; a round that reached none waits the backoff (0.1 s doubling to
/// 5 s, with jitter), and so does the move after a welcomed connection ends, so a server that
/// welcomes and drops at once never makes the link spin. The backoff starts over only when a
/// server acknowledges something (``progressed()``).
struct ServerRotation {
    /// Why the link connects again.
    enum Move {
        /// The same server: an event it refused goes again without its state change (any
        /// server would refuse it as it was).
        case same
        /// The next server, at once while this round has servers left: the connect failed or the
        /// server refused the session at `hello` (`read-only`, `storage`, `not-owner`).
        case nextUnwelcomed
        /// The next server after the backoff: a welcomed connection ended, or could not take
        /// what was sent (closing, or its queue full).
        case nextWelcomed
    }

    /// How many servers there are (at least one).
    let count: Int
    /// The server (an index) the current or next attempt goes to.
    private(set) var current: Int
    /// Servers that may still be tried at once, without waiting, in this round.
    private var untried: Int
    /// A whole round of servers has been tried (the link waited before trying again).
    private(set) var triedEveryServer = false
    private var backoff = ReconnectBackoff()

    /// Starts at `startAt` (the first server when it is out of range).
    init(count: Int, startAt: Int) {
        self.count = count
        current = (0..<count).contains(startAt) ? startAt : 0
        untried = count - 1
    }

    /// Moves on for `move`: returns `nil` to connect at once, else the delay (seconds) to wait.
    /// Whether the server changed is `current` before and after.
    mutating func move(_ move: Move) -> Double? {
        if move != .same, count > 1 { current = (current + 1) % count }
        if move == .nextUnwelcomed, untried > 0 {
            untried -= 1
            return nil
        }
        // A new round, after the wait: every server may be tried once more at once.
        untried = count - 1
        triedEveryServer = true
        return backoff.nextDelay()
    }

    /// A server welcomed the session and streaming starts: a full round again. The backoff does
    /// not start over here (a server that welcomes and drops at once, again and again, is retried
    /// as one that never answers), only at ``progressed()``.
    mutating func streaming() {
        untried = count - 1
    }

    /// The server acknowledged something: the next failure waits the first delay again.
    mutating func progressed() {
        backoff.reset()
    }
}
