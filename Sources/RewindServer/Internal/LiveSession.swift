import RewindLog
import RewindSupport
import RewindWebSocket

/// A session an app is streaming: its current state (inside the builder) and who acks it.
/// Touched only on the ingest queue, except ``acks`` and ``broken`` (the writer's thread sets it).
final class LiveSession: @unchecked Sendable {
    let id: Int64
    let uuid: String
    var builder: EventBuilder
    /// The connection streaming it now.
    var connection: WebSocketConnection
    let acks: AckSender
    /// The log refused an event: the in-memory state may be ahead of the log, so the app must
    /// say hello again (which rebuilds it from the log). Set on the writer's thread before the
    /// app hears `storage`, so whatever the app sends after that error finds it set.
    var broken: Bool {
        get { brokenFlag.withLock { $0 } }
        set { brokenFlag.withLock { $0 = newValue } }
    }
    private let brokenFlag = Mutex(false)
    /// The size of the current state as canonical compact JSON, when known (it is measured as
    /// the state is hashed); bounds the inverse of the next event.
    var stateBytes: Int?
    /// When the app says it started the session (seconds since 1970): an `end` claimed before it
    /// is taken as this time.
    var startedAt: Double = 0

    init(id: Int64, uuid: String, builder: EventBuilder, connection: WebSocketConnection, durable: Int64) {
        self.id = id
        self.uuid = uuid
        self.builder = builder
        self.connection = connection
        self.acks = AckSender(connection: connection, durable: durable)
    }
}
