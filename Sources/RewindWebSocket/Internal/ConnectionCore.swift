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

        var acceptsSends: Bool { !isClosed && !isClosing && closeRequest == nil }
    }

    let id: UInt64
    private let waker: ServiceWaker
    private let lock = NSLock()
    private var shared: Shared

    // Service thread only.
    var wsi: OpaquePointer?
    var assembler: MessageAssembler
    var writer = FrameWriter()
    /// The code reported to `didClose`: the peer's, or the one this side sent first.
    var closeCode: WebSocketCloseCode?
    var closeTimerArmed = false

    init(id: UInt64, limits: WebSocketQueueLimits, maxMessageSize: Int, waker: ServiceWaker) {
        self.id = id
        self.waker = waker
        self.shared = Shared(queue: OutgoingQueue(limits: limits))
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize)
    }

    // MARK: Any thread

    func enqueue(_ message: WebSocketMessage) -> WebSocketSendResult {
        lock.lock()
        guard shared.acceptsSends else {
            lock.unlock()
            return .closed
        }
        guard shared.queue.push(message) else {
            lock.unlock()
            return .queueFull
        }
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

    var queuedMessageCount: Int { lock.withLock { shared.queue.count } }
    var queuedByteCount: Int { lock.withLock { shared.queue.byteCount } }

    // MARK: Service thread

    /// Re-arms wake-ups; called as the service thread takes this core from the waker.
    func clearWakeFlag() {
        lock.withLock { shared.wakeQueued = false }
    }

    /// Whether a close was requested and not yet written.
    var hasCloseRequest: Bool { lock.withLock { shared.closeRequest != nil } }

    /// Whether anything (a message or the close) waits to be written.
    var hasPendingOutput: Bool {
        lock.withLock { !shared.isClosed && !shared.isClosing && (!shared.queue.isEmpty || shared.closeRequest != nil) }
    }

    /// Takes the next message, or the close once the queue is empty.
    func next() -> Next {
        lock.lock()
        defer { lock.unlock() }
        if shared.isClosed || shared.isClosing { return .nothing }
        if let message = shared.queue.pop() { return .message(message) }
        if let request = shared.closeRequest { return .close(request.code, reason: request.reason) }
        return .nothing
    }

    /// Refuses further sends without writing a close (lws is already closing the connection).
    func stopAccepting() {
        lock.withLock { shared.isClosing = true }
    }

    /// Drops what is queued; every later send reports `.closed`.
    func markClosed() {
        lock.withLock {
            shared.isClosed = true
            shared.queue.removeAll()
        }
        wsi = nil
    }
}
