import Dispatch
import RewindJSON
import RewindSupport
import RewindWebSocket
import RewindWire

/// Live fan-out to inspectors, on the caller's thread under a lock of its own: each push is
/// serialized once and the same bytes are queued on every subscriber. (It used to hop to a
/// serial queue per event: at a few thousand events a second each hop was a thread wake-up.) An
/// inspector whose queue is full is marked lagged: its live events are dropped until its queue
/// has drained, then it is sent `lagged`.
final class InspectorHub: @unchecked Sendable {
    private struct Inspector {
        var connection: WebSocketConnection
        var all = false
        var sessions: Set<Int64> = []
        var lagged = false
    }

    private struct State {
        var inspectors: [UInt64: Inspector] = [:]
        var lagCheckScheduled = false
    }

    private let state = Mutex(State())
    /// Counts the inspectors that fall behind (`--metrics`).
    private let metrics: ServerMetrics?

    init(metrics: ServerMetrics? = nil) {
        self.metrics = metrics
    }

    /// Where the lag checks run, 20 ms apart.
    private let lagQueue = DispatchQueue(label: "rewind.server.lag")

    func add(_ connection: WebSocketConnection) {
        state.withLock { $0.inspectors[connection.id] = Inspector(connection: connection) }
    }

    func remove(_ connection: WebSocketConnection) {
        state.withLock { _ = $0.inspectors.removeValue(forKey: connection.id) }
    }

    /// How many inspector connections are open.
    var count: Int {
        state.withLock { $0.inspectors.count }
    }

    /// Subscribes `connection` to one session (`nil`: all), then queues `reply`, so the reply
    /// comes before the first live event.
    func subscribe(_ connection: WebSocketConnection, session: Int64?, reply: [UInt8]) {
        state.withLock { state in
            var inspector = state.inspectors[connection.id] ?? Inspector(connection: connection)
            if let session { inspector.sessions.insert(session) } else { inspector.all = true }
            state.inspectors[connection.id] = inspector
            _ = connection.send(textBytes: reply)
        }
    }

    func unsubscribe(_ connection: WebSocketConnection, session: Int64?, reply: [UInt8]) {
        state.withLock { state in
            if var inspector = state.inspectors[connection.id] {
                if let session { inspector.sessions.remove(session) } else { inspector.all = false; inspector.sessions = [] }
                state.inspectors[connection.id] = inspector
            }
            _ = connection.send(textBytes: reply)
        }
    }

    /// Whether some inspector follows `sessionID` (and is not lagged).
    func isListening(to sessionID: Int64) -> Bool {
        state.withLock { state in
            state.inspectors.values.contains { !$0.lagged && ($0.all || $0.sessions.contains(sessionID)) }
        }
    }

    /// `frame` is the app's own frame when ``InspectorPush/canForward(event:)`` accepted it.
    func publish(event: WireEvent, frame: [UInt8]? = nil, session: String, sessionID: Int64, actionType: String) {
        // Serialized only when someone is listening, outside the lock.
        let listening = state.withLock { state in
            state.inspectors.values.contains { !$0.lagged && ($0.all || $0.sessions.contains(sessionID)) }
        }
        guard listening else { return }
        let bytes = frame.flatMap { InspectorPush.eventBytes(forwarding: $0, session: session, sessionID: sessionID, actionType: actionType) }
            ?? InspectorPush.event(session: session, sessionID: sessionID, actionType: actionType, event: event).json.serializedBytes(.compact)
        deliver(bytes) { $0.all || $0.sessions.contains(sessionID) }
    }

    /// Tells every inspector that a session started, resumed or ended.
    func publish(change: InspectorPush.SessionChange, session: WireSession) {
        let bytes = InspectorPush.session(change: change, session: session).json.serializedBytes(.compact)
        deliver(bytes) { _ in true }
    }

    /// Tells every inspector that follows live events that some may be missing (the shared
    /// store's feed was cut off): each fetches what it missed with `events`, as after a lag.
    func publishGap(_ message: String) {
        let bytes = InspectorPush.lagged(session: nil, message: message).json.serializedBytes(.compact)
        deliver(bytes) { $0.all || !$0.sessions.isEmpty }
    }

    private func deliver(_ bytes: [UInt8], to wanted: (Inspector) -> Bool) {
        let lagging = state.withLock { state -> Bool in
            var lagging = false
            for (key, inspector) in state.inspectors where !inspector.lagged && wanted(inspector) {
                switch inspector.connection.send(textBytes: bytes) {
                case .enqueued:
                    break
                case .queueFull:
                    state.inspectors[key]?.lagged = true
                    lagging = true
                    metrics?.lagged()
                case .closed:
                    state.inspectors[key] = nil
                }
            }
            return lagging
        }
        if lagging { scheduleLagCheck() }
    }

    /// Polls lagged inspectors' queues until each has drained, then tells it `lagged`.
    private func scheduleLagCheck() {
        let first = state.withLock { state -> Bool in
            defer { state.lagCheckScheduled = true }
            return !state.lagCheckScheduled
        }
        guard first else { return }
        lagQueue.asyncAfter(deadline: .now() + .milliseconds(20)) {
            let stillLagging = self.state.withLock { state -> Bool in
                state.lagCheckScheduled = false
                var stillLagging = false
                for (key, inspector) in state.inspectors where inspector.lagged {
                    guard inspector.connection.isOpen else {
                        state.inspectors[key] = nil
                        continue
                    }
                    if inspector.connection.queuedMessageCount == 0 {
                        let message = InspectorPush.lagged(session: nil, message: "live events were dropped because this inspector did not read fast enough; fetch what you missed with events")
                        if inspector.connection.send(textBytes: message.json.serializedBytes(.compact)) == .enqueued {
                            state.inspectors[key]?.lagged = false
                            continue
                        }
                    }
                    stillLagging = true
                }
                return stillLagging
            }
            if stillLagging { self.scheduleLagCheck() }
        }
    }
}
