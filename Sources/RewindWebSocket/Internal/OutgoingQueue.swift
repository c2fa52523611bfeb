import RewindSupport

/// A FIFO of messages bounded in count and bytes.
struct OutgoingQueue {
    let limits: WebSocketQueueLimits
    private var items = RingQueue<WebSocketMessage>()
    private(set) var byteCount = 0

    init(limits: WebSocketQueueLimits) {
        self.limits = limits
    }

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }

    /// Whether a message of `size` bytes can be appended without passing a limit.
    func fits(_ size: Int) -> Bool {
        count < limits.maxMessages && size <= limits.maxBytes - byteCount
    }

    /// Appends `message` unless that would pass a limit.
    @discardableResult
    mutating func push(_ message: WebSocketMessage) -> Bool {
        let size = message.bytes.count
        guard fits(size) else { return false }
        items.append(message)
        byteCount += size
        return true
    }

    /// Removes and returns the oldest message. The ring empties its slot as it pops, so the
    /// payload goes now, not when the slot is next written.
    mutating func pop() -> WebSocketMessage? {
        guard let message = items.popFirst() else { return nil }
        byteCount -= message.bytes.count
        return message
    }

    /// The size of the oldest message, if any.
    var firstSize: Int? { items.first?.bytes.count }

    mutating func removeAll() {
        items.removeAll()
        byteCount = 0
    }
}
