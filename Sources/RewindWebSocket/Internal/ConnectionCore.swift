import Foundation
import RewindSupport

/// The shared heart of one WebSocket connection: the bounded outgoing queue and close request
/// that any thread may touch (in `shared`, under its lock), and the wsi, reassembly and write
/// position that only the service thread touches.
final class ConnectionCore: @unchecked Sendable {
    /// What the service thread should write next.
    enum Next {
        case message(WebSocketMessage)
        case close(WebSocketCloseCode, reason: [UInt8])
        case nothing
    }

    private struct Shared {
        var queue: OutgoingQueue
        var closeRequest: (code: WebSocketCloseCode, reason: [UInt8])?
        /// The close handshake is under way (peer's close, or an oversized message).
        var isClosing = false
        var isClosed = false
        var wakeQueued = false
        /// Whether the owner wants reading from the socket paused (applied on the service thread).
        var receivePaused = false
        /// Messages that left in a batch with others (for tests and benchmarks). The service
        /// thread adds to it inside the lock it takes after each batch anyway, so counting costs
        /// no lock of its own.
        var batchedMessages = 0

        var acceptsSends: Bool { !isClosed && !isClosing && closeRequest == nil }
        /// Whether anything (a message or the close) waits to be written.
        var hasPendingOutput: Bool { !isClosed && !isClosing && (!queue.isEmpty || closeRequest != nil) }

        /// When `needed` and no wake-up is queued yet, queues one; returns whether the caller
        /// must wake the service thread (off the lock).
        mutating func queueWake(if needed: Bool) -> Bool {
            guard needed, !wakeQueued else { return false }
            wakeQueued = true
            return true
        }
    }

    let id: UInt64
    private let waker: ServiceWaker
    /// The server-wide cap on queued output, when this is a server's connection.
    private let budget: OutputBudget?
    private let shared: Mutex<Shared>

    // Service thread only.
    var wsi: OpaquePointer?
    var assembler: MessageAssembler
    var writer = FrameWriter()
    /// The code reported to `didClose`: the peer's, or the one this side sent first.
    var closeCode: WebSocketCloseCode?
    var closeTimerArmed = false
    /// Whether lws was last told to pause reading (service thread).
    var receivePausedInLWS = false

    init(id: UInt64, limits: WebSocketQueueLimits, maxMessageSize: Int, waker: ServiceWaker, budget: OutputBudget? = nil) {
        self.id = id
        self.waker = waker
        self.budget = budget
        self.shared = Mutex(Shared(queue: OutgoingQueue(limits: limits)))
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize)
        budget?.register(self)
    }

    // MARK: Any thread

    func enqueue(_ message: WebSocketMessage) -> WebSocketSendResult {
        let size = message.bytes.count
        var evicted = false
        while true {
            switch tryEnqueue(message, size: size) {
            case .some(let result):
                return result
            case .none:
                // Over the server-wide cap: evict the largest queue (never with a lock held),
                // then try once more.
                guard !evicted, let budget, budget.evictLargest() else { return .queueFull }
                evicted = true
            }
        }
    }

    /// The result of queueing `message`, or `nil` when only the server-wide cap refused it.
    private func tryEnqueue(_ message: WebSocketMessage, size: Int) -> WebSocketSendResult? {
        let (result, mustWake) = shared.withLock { shared -> (WebSocketSendResult?, Bool) in
            guard shared.acceptsSends else { return (.closed, false) }
            guard shared.queue.fits(size) else { return (.queueFull, false) }
            if let budget, !budget.reserve(size) { return (nil, false) }
            shared.queue.push(message)
            return (.enqueued, shared.queueWake(if: true))
        }
        if mustWake { waker.wake(self) }
        return result
    }

    /// Asks for a close after the queued messages; the first request wins. With `wake` false the
    /// caller (on the service thread) asks for writability itself.
    func requestClose(code: WebSocketCloseCode, reason: String, wake: Bool = true) {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 { reasonBytes.removeLast(reasonBytes.count - 123) }  // 125-byte control payload
        let mustWake = shared.withLock { shared -> Bool in
            guard shared.acceptsSends else { return false }
            shared.closeRequest = (code, reasonBytes)
            return shared.queueWake(if: wake)
        }
        if mustWake { waker.wake(self) }
    }

    var isOpen: Bool {
        shared.withLock { $0.acceptsSends }
    }

    /// Asks the service thread to stop (or resume) reading this connection's socket.
    func setReceivePaused(_ paused: Bool) {
        let mustWake = shared.withLock { shared -> Bool in
            guard shared.receivePaused != paused else { return false }
            shared.receivePaused = paused
            return shared.queueWake(if: !shared.isClosed)
        }
        if mustWake { waker.wake(self) }
    }

    /// Drops the wake-ups queued for a connection no service thread looks at (detached).
    func forgetWakeUps() {
        _ = waker.takePending()
    }

    /// What reading should be now (service thread).
    var wantsReceivePaused: Bool { shared.withLock { $0.receivePaused } }

    var queuedMessageCount: Int { shared.withLock { $0.queue.count } }
    var queuedByteCount: Int { shared.withLock { $0.queue.byteCount } }
    /// Messages that left in a batch with others.
    var batchedMessageCount: Int { shared.withLock { $0.batchedMessages } }

    // MARK: Service thread

    /// Re-arms wake-ups; called as the service thread takes this core from the waker.
    func clearWakeFlag() {
        shared.withLock { $0.wakeQueued = false }
    }

    /// Whether a close was requested and not yet written.
    var hasCloseRequest: Bool { shared.withLock { $0.closeRequest != nil } }

    /// Whether anything (a message or the close) waits to be written.
    var hasPendingOutput: Bool { shared.withLock { $0.hasPendingOutput } }

    /// Counts a batch of `count` messages just written and says whether anything else waits to
    /// be written: one lock for both, the one the writable callback takes anyway.
    func finishBatch(of count: Int) -> Bool {
        shared.withLock { shared in
            shared.batchedMessages += count
            return shared.hasPendingOutput
        }
    }

    /// Takes the next message, or the close once the queue is empty.
    func next() -> Next {
        shared.withLock { shared in
            if shared.isClosed || shared.isClosing { return .nothing }
            if let message = shared.queue.pop() {
                budget?.sent(message.bytes.count)
                return .message(message)
            }
            if let request = shared.closeRequest { return .close(request.code, reason: request.reason) }
            return .nothing
        }
    }

    /// Takes the next message only if it is at most `maxBytes` long (a batch's next member).
    func nextMessage(atMost maxBytes: Int) -> WebSocketMessage? {
        shared.withLock { shared in
            guard !shared.isClosed, !shared.isClosing, let size = shared.queue.firstSize, size <= maxBytes,
                  let message = shared.queue.pop() else { return nil }
            budget?.sent(message.bytes.count)
            return message
        }
    }

    /// Refuses further sends without writing a close (lws is already closing the connection).
    func stopAccepting() {
        shared.withLock { $0.isClosing = true }
    }

    /// Drops what is queued; every later send reports `.closed`.
    func markClosed() {
        let dropped = shared.withLock { shared -> Int in
            shared.isClosed = true
            let bytes = shared.queue.byteCount
            shared.queue.removeAll()
            return bytes
        }
        budget?.release(dropped)
        budget?.unregister(self)
        wsi = nil
    }

    /// Drops the queue at once and asks for a close with 1008 (any thread; the server-wide
    /// output cap). Returns the bytes dropped.
    func evict(reason: String) -> Int {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 { reasonBytes.removeLast(reasonBytes.count - 123) }
        let (bytes, mustWake) = shared.withLock { shared -> (Int, Bool) in
            let bytes = shared.queue.byteCount
            shared.queue.removeAll()
            if shared.acceptsSends { shared.closeRequest = (.policyViolation, reasonBytes) }
            return (bytes, shared.queueWake(if: !shared.isClosed))
        }
        budget?.release(bytes)
        if mustWake { waker.wake(self) }
        return bytes
    }
}
