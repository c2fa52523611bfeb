import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWire

/// Waiting for the server: the one public wait (``ServerSink/waitUntilDelivered(timeout:)``) and
/// the narrower ones a recorder's finish, `rewind push` and the tests use. Each counts down one
/// ``Deadline``; none waits on the main actor.
extension ServerSink {
    /// Waits until the earlier sessions found in the local log are delivered, or `timeout`.
    @discardableResult
    package func waitForCatchUp(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let catching = shared.withLock { $0.catchingUp }
        var all = true
        for link in catching where !link.waitUntilDelivered(until: deadline) { all = false }
        shared.withLock { $0.outbox }?.waitForMarks()
        return all
    }

    /// Waits until every ended session has been delivered: all its events acknowledged, `end`
    /// written to the socket and the connection closed. A process that exits right after ending
    /// its recording calls this so its last message is not cut off; `false` if `timeout` passed
    /// first (the server is away, say).
    @discardableResult
    package func waitUntilEnded(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let (ending, catching) = shared.withLock { ($0.ending, $0.catchingUp) }
        var delivered: [ServerLink] = []
        // With a local log the events are safe on the device: while the server is away there is
        // nothing to wait for (they go out the next time the app reaches it).
        let outbox = shared.withLock { $0.outbox }
        // Only a session the local log holds is safe there: one it could not take lives in
        // memory alone and is waited for like any other.
        func keptLocally(_ link: ServerLink) -> Bool {
            guard let outbox else { return false }
            return outbox.sessionID(of: link.session.uuid) != nil && outbox.lastFailure == nil
        }
        for link in ending where link.waitUntilDelivered(until: deadline, unlessUnanswered: keptLocally(link)) {
            delivered.append(link)
        }
        shared.withLock { shared in
            for link in ending {
                let status = link.status
                shared.finals[link.session.uuid] = (status.ackedThrough, status.lastSeq)
            }
        }
        // Earlier sessions delivered from the local log get what is left of the time too; what
        // they do not finish stays on the device for the next run.
        var caughtUp = true
        // Catch-up sessions come from the local log: never connected, they wait there.
        for link in catching where !link.waitUntilDelivered(until: deadline, unlessUnanswered: outbox != nil) {
            caughtUp = false
        }
        outbox?.waitForMarks()
        _ = caughtUp
        return shared.withLock { shared in
            shared.ending.removeAll { link in delivered.contains { $0 === link } }
            return shared.ending.isEmpty
        }
    }

    /// Waits until the server has acknowledged every event written so far; `false` on timeout.
    @discardableResult
    package func waitForAcknowledgements(timeout: Duration) -> Bool {
        waitForAcks(timeout: timeout, throughOutages: true)
    }

    func waitForAcks(timeout: Duration, throughOutages: Bool) -> Bool {
        let deadline = Deadline.after(timeout)
        let links = shared.withLock { Array($0.links.values) }
        // A transport that cannot run here gave up: what it held is not acknowledged.
        var acked = !shared.withLock { $0.gaveUp }
        for link in links where !link.waitForAcks(until: deadline, throughOutages: throughOutages) { acked = false }
        return acked
    }

    /// Waits until the server has everything this sink was given: the earlier sessions found in
    /// the local log, every event written so far acknowledged, and every ended session's end.
    /// It waits through outages (the sink reconnects meanwhile); `false` when `timeout` passes
    /// first. It blocks the calling thread: call it off the main actor (a test, a command line
    /// tool, a background task before the app exits).
    @discardableResult
    public func waitUntilDelivered(timeout: Duration) -> Bool {
        let deadline = Deadline.after(timeout)
        let caughtUp = waitForCatchUp(timeout: deadline.remaining)
        let acknowledged = waitForAcknowledgements(timeout: deadline.remaining)
        let ending = shared.withLock { $0.ending }
        var ended = true
        for link in ending where !link.waitUntilDelivered(until: deadline) { ended = false }
        return caughtUp && acknowledged && ended
    }
}
