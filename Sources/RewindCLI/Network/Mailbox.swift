import Foundation
import RewindJSON

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
final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Delivery] = []
    private var interrupted = false

    func post(_ delivery: Delivery) {
        condition.lock()
        if case .interrupted = delivery { interrupted = true }
        items.append(delivery)
        condition.broadcast()
        condition.unlock()
    }

    /// The next delivery, or `nil` when `deadline` passes first (`nil`: wait as long as it
    /// takes). An interrupt jumps the queue.
    func next(until deadline: Date?) -> Delivery? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !interrupted {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                // Not wait(until: .distantFuture): Foundation on Linux traps on that deadline.
                condition.wait()
            }
        }
        if interrupted { return .interrupted }
        return items.isEmpty ? nil : items.removeFirst()
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
