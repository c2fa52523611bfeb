import Foundation

/// The shared heart of one WebSocket connection: the bounded outgoing queue and close request
/// that any thread may touch (under `lock`), and the wsi, reassembly and write position that only
/// the service thread touches.
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
    }

    let id: UInt64
    private let waker: ServiceWaker
    /// The server-wide cap on queued output, when this is a server's connection.
    private let budget: OutputBudget?
    private let lock = NSLock()
    private var shared: Shared

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
        self.shared = Shared(queue: OutgoingQueue(limits: limits))
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
        lock.lock()
        guard shared.acceptsSends else {
            lock.unlock()
            return .closed
        }
        guard shared.queue.fits(size) else {
            lock.unlock()
            return .queueFull
        }
        if let budget, !budget.reserve(size) {
            lock.unlock()
            return nil
        }
        shared.queue.push(message)
        let mustWake = !shared.wakeQueued
        shared.wakeQueued = true
        lock.unlock()
        if mustWake { waker.wake(self) }
        return .enqueued
    }

    /// Asks for a close after the queued messages; the first request wins. With `wake` false the
    /// caller (on the service thread) asks for writability itself.
    func requestClose(code: WebSocketCloseCode, reason: String, wake: Bool = true) {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 { reasonBytes.removeLast(reasonBytes.count - 123) }  // 125-byte control payload
        lock.lock()
        guard shared.acceptsSends else {
            lock.unlock()
            return
        }
        shared.closeRequest = (code, reasonBytes)
        let mustWake = wake && !shared.wakeQueued
        if mustWake { shared.wakeQueued = true }
        lock.unlock()
        if mustWake { waker.wake(self) }
    }

    var isOpen: Bool {
        lock.withLock { shared.acceptsSends }
    }

    /// Asks the service thread to stop (or resume) reading this connection's socket.
    func setReceivePaused(_ paused: Bool) {
        lock.lock()
        guard shared.receivePaused != paused else {
            lock.unlock()
            return
        }
        shared.receivePaused = paused
        let mustWake = !shared.wakeQueued && !shared.isClosed
        if mustWake { shared.wakeQueued = true }
        lock.unlock()
        if mustWake { waker.wake(self) }
    }

    /// Drops the wake-ups queued for a connection no service thread looks at (detached).
    func forgetWakeUps() {
        _ = waker.takePending()
    }

    /// What reading should be now (service thread).
    var wantsReceivePaused: Bool { lock.withLock { shared.receivePaused } }

    var queuedMessageCount: Int { lock.withLock { shared.queue.count } }
    var queuedByteCount: Int { lock.withLock { shared.queue.byteCount } }
    /// Messages that left in a batch with others.
    var batchedMessageCount: Int { lock.withLock { shared.batchedMessages } }

    // MARK: Service thread

    /// Re-arms wake-ups; called as the service thread takes this core from the waker.
    func clearWakeFlag() {
        lock.withLock { shared.wakeQueued = false }
    }

    /// Whether a close was requested and not yet written.
    var hasCloseRequest: Bool { lock.withLock { shared.closeRequest != nil } }

    /// Whether anything (a message or the close) waits to be written.
    var hasPendingOutput: Bool { lock.withLock { shared.hasPendingOutput } }

    /// Counts a batch of `count` messages just written and says whether anything else waits to
    /// be written: one lock for both, the one the writable callback takes anyway.
    func finishBatch(of count: Int) -> Bool {
        lock.withLock {
            shared.batchedMessages += count
            return shared.hasPendingOutput
        }
    }

    /// Takes the next message, or the close once the queue is empty.
    func next() -> Next {
        lock.lock()
        defer { lock.unlock() }
        if shared.isClosed || shared.isClosing { return .nothing }
        if let message = shared.queue.pop() {
            budget?.release(message.bytes.count)
            return .message(message)
        }
        if let request = shared.closeRequest { return .close(request.code, reason: request.reason) }
        return .nothing
    }

    /// Takes the next message only if it is at most `maxBytes` long (a batch's next member).
    func nextMessage(atMost maxBytes: Int) -> WebSocketMessage? {
        lock.lock()
        defer { lock.unlock() }
        guard !shared.isClosed, !shared.isClosing, let size = shared.queue.firstSize, size <= maxBytes,
              let message = shared.queue.pop() else { return nil }
        budget?.release(message.bytes.count)
        return message
    }

    /// Refuses further sends without writing a close (lws is already closing the connection).
    func stopAccepting() {
        lock.withLock { shared.isClosing = true }
    }

    /// Drops what is queued; every later send reports `.closed`.
    func markClosed() {
        let dropped = lock.withLock { () -> Int in
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
        lock.lock()
        let bytes = shared.queue.byteCount
        shared.queue.removeAll()
        if shared.acceptsSends { shared.closeRequest = (.policyViolation, reasonBytes) }
        let mustWake = !shared.wakeQueued && !shared.isClosed
        if mustWake { shared.wakeQueued = true }
        lock.unlock()
        budget?.release(bytes)
        if mustWake { waker.wake(self) }
        return bytes
    }
}
