/// A FIFO of messages bounded in count and bytes.
struct OutgoingQueue {
    let limits: WebSocketQueueLimits
    private var items: [WebSocketMessage] = []
    private var head = 0
    private(set) var byteCount = 0

    init(limits: WebSocketQueueLimits) {
        self.limits = limits
    }

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

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

    /// Removes and returns the oldest message.
    mutating func pop() -> WebSocketMessage? {
        guard head < items.count else { return nil }
        let message = items[head]
        items[head] = .binary([])  // let the payload go now, not when the slot is compacted
        head += 1
        byteCount -= message.bytes.count
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return message
    }

    /// The size of the oldest message, if any.
    var firstSize: Int? { head < items.count ? items[head].bytes.count : nil }

    mutating func removeAll() {
        items.removeAll()
        head = 0
        byteCount = 0
    }
}
