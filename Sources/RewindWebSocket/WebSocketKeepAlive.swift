/// When an idle connection is pinged, and when it is given up.
///
/// Maps to libwebsockets' validity policy (`lws_retry_bo_t`): after `pingAfterSeconds` without
/// proof the peer is alive (a pong), a ping is sent; after `hangUpAfterSeconds` without one, the
/// connection is dropped and reported closed with ``WebSocketCloseCode/abnormalClosure``.
public struct WebSocketKeepAlive: Sendable, Hashable {
    /// Seconds of silence before a ping.
    public var pingAfterSeconds: UInt16
    /// Seconds of silence before hanging up; should exceed `pingAfterSeconds`.
    public var hangUpAfterSeconds: UInt16

    /// Ping after `pingAfterSeconds` (default 30) and hang up after `hangUpAfterSeconds` (default 75).
    public init(pingAfterSeconds: UInt16 = 30, hangUpAfterSeconds: UInt16 = 75) {
        self.pingAfterSeconds = pingAfterSeconds
        self.hangUpAfterSeconds = hangUpAfterSeconds
    }
}
