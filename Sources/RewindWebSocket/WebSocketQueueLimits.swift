/// Bounds on one connection's outgoing queue.
///
/// A message is refused (``WebSocketSendResult/queueFull``) when accepting it would put more than
/// `maxMessages` messages or more than `maxBytes` payload bytes in the queue. The message being
/// written right now no longer counts. A message larger than `maxBytes` can never be sent.
public struct WebSocketQueueLimits: Sendable, Hashable {
    /// The most messages waiting to be written.
    public var maxMessages: Int
    /// The most payload bytes waiting to be written.
    public var maxBytes: Int

    /// Limits of `maxMessages` messages and `maxBytes` bytes (defaults: 4,096 and 32 MiB).
    public init(maxMessages: Int = 4_096, maxBytes: Int = 32 << 20) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
    }
}
