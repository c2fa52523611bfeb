import Foundation

/// Bounds the connections that have been accepted but have not yet sent their request (an HTTP
/// request, or a WebSocket upgrade): per peer address and in all. A connection that sends
/// nothing holds a descriptor until libwebsockets times it out (10 s); without a bound, one
/// client opening connections faster than that exhausts the server's descriptors before any
/// token is checked. Used on the service thread only.
struct HandshakeGate {
    /// The limits; ``WebSocketServerConfiguration/handshakeLimits``.
    let limits: WebSocketHandshakeLimits
    /// The connections waiting for their request, by descriptor: their peer and when accepted.
    private var waiting: [Int32: (peer: [UInt8], since: UInt64)] = [:]
    /// How many wait per peer (entries of `waiting`).
    private var perPeer: [[UInt8]: Int] = [:]
    /// How many connections were refused, since the server started.
    private(set) var refused = 0

    init(limits: WebSocketHandshakeLimits) {
        self.limits = limits
    }

    /// Whether a connection accepted from `peer` (its address bytes) on `descriptor` may wait
    /// for its request; when it may, it is counted until ``requested(descriptor:)``.
    mutating func admit(descriptor: Int32, peer: [UInt8], now: UInt64) -> Bool {
        // A descriptor seen again was closed without a request (the kernel reuses the number).
        forget(descriptor)
        expire(now: now)
        guard waiting.count < limits.maxWaiting, perPeer[peer, default: 0] < limits.maxWaitingPerAddress else {
            refused += 1
            return false
        }
        waiting[descriptor] = (peer, now)
        perPeer[peer, default: 0] += 1
        return true
    }

    /// The connection on `descriptor` sent its request (or closed): it no longer waits.
    mutating func requested(descriptor: Int32) {
        forget(descriptor)
    }

    var waitingCount: Int { waiting.count }

    private mutating func forget(_ descriptor: Int32) {
        guard let entry = waiting.removeValue(forKey: descriptor) else { return }
        let left = (perPeer[entry.peer] ?? 1) - 1
        perPeer[entry.peer] = left > 0 ? left : nil
    }

    /// Drops entries older than the time libwebsockets gives a silent connection: it has closed
    /// them (their close may not have named the descriptor).
    private mutating func expire(now: UInt64) {
        let limit = UInt64(WebSocketHandshakeLimits.requestTimeoutSeconds + 1) * 1_000_000_000
        guard waiting.count >= limits.maxWaitingPerAddress else { return }
        for (descriptor, entry) in waiting where now &- entry.since > limit { forget(descriptor) }
    }
}

/// How many accepted connections may wait for their first request (a page, an export, a
/// WebSocket upgrade) at once: a client that opens connections and sends nothing is refused at
/// accept past these, instead of taking every descriptor the server has.
public struct WebSocketHandshakeLimits: Sendable, Hashable {
    /// From one peer address (default 256). Behind a reverse proxy, or a NAT of many devices,
    /// every client has one address, and a reconnect storm accepts many before any is read: 256
    /// leaves room for that, while a flood from one address still holds at most 256 descriptors.
    public var maxWaitingPerAddress: Int
    /// From all peers together (default 1,024).
    public var maxWaiting: Int
    /// How long a connection may stay silent before libwebsockets closes it (`timeout_secs_ah_idle`,
    /// left at its 10 s: shorter, it also cut streamed exports a slow reader was still reading).
    public static let requestTimeoutSeconds = 10

    public init(maxWaitingPerAddress: Int = 256, maxWaiting: Int = 1_024) {
        self.maxWaitingPerAddress = max(1, maxWaitingPerAddress)
        self.maxWaiting = max(1, maxWaiting)
    }
}
