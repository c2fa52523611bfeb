import Foundation
import RewindJSON
import RewindSupport

/// What reaches a command's main loop: a message from the server, the end of a connection, or a
/// signal. Everything is posted to one ``Mailbox`` so a single thread handles it in order.
enum Delivery {
    /// A parsed message of connection `generation`.
    case message(JSONObject, generation: Int)
    /// Connection `generation` ended (`reason` in words) or never came about.
    case lost(reason: String, generation: Int, connected: Bool)
    /// SIGINT or SIGTERM: stop cleanly.
    case interrupted
}

/// A queue of ``Delivery`` values filled from the WebSocket and signal threads and drained by
/// the main loop.
final class Mailbox: Sendable {
    private struct Box {
        var items: [Delivery] = []
        var interrupted = false
    }

    /// The main loop waits here for a delivery; each post wakes it.
    private let box = Condition(Box())

    func post(_ delivery: Delivery) {
        box.update(waking: .all) { box in
            if case .interrupted = delivery { box.interrupted = true }
            box.items.append(delivery)
        }
    }

    /// The next delivery, or `nil` when `deadline` passes first (`nil`: wait as long as it
    /// takes). An interrupt jumps the queue.
    func next(until deadline: Date?) -> Delivery? {
        let monotonicDeadline = deadline.map { MonotonicClock.deadline(after: $0.timeIntervalSinceNow) }
        return box.withLock(when: { !$0.items.isEmpty || $0.interrupted }, deadline: monotonicDeadline) { box -> Delivery in
            box.interrupted ? .interrupted : box.items.removeFirst()
        }
    }

    /// Stops the process's default handling of SIGINT and SIGTERM and posts ``Delivery/interrupted``
    /// instead; keep the returned sources alive.
    func catchInterrupts() -> [DispatchSourceSignal] {
        Interrupts.holdUntilCaught()
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.post(.interrupted) }
            source.resume()
            return source
        }
    }
}
