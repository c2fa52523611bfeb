/// What became of a message handed to ``WebSocketConnection/send(_:)``.
///
/// Sending never blocks and never grows a queue past its limits: a caller that gets `.queueFull`
/// knows the peer is not keeping up (the server marks such an inspector `lagged`).
public enum WebSocketSendResult: Sendable, Hashable {
    /// The message is queued and will be written in order.
    case enqueued
    /// The connection's outgoing queue is at its limit; the message was dropped.
    case queueFull
    /// The connection is closing or closed; the message was dropped.
    case closed
}
