import Dispatch
import RewindJSON
import RewindWebSocket
import RewindWire

/// Live fan-out to inspectors, on a serial queue of its own: each push is serialized once and
/// the same bytes are queued on every subscriber. An inspector whose queue is full is marked
/// lagged: its live events are dropped until its queue has drained, then it is sent `lagged`.
final class InspectorHub: @unchecked Sendable {
    private struct Inspector {
        var connection: WebSocketConnection
        var all = false
        var sessions: Set<Int64> = []
        var lagged = false
    }

    private let queue = DispatchQueue(label: "rewind.server.fanout")
    // Fan-out-queue state.
    private var inspectors: [UInt64: Inspector] = [:]
    private var lagCheckScheduled = false

    func add(_ connection: WebSocketConnection) {
        queue.async { self.inspectors[connection.id] = Inspector(connection: connection) }
    }

    func remove(_ connection: WebSocketConnection) {
        queue.async { self.inspectors[connection.id] = nil }
    }

    /// Subscribes `connection` to one session (`nil`: all), then queues `reply`, so the reply
    /// comes before the first live event.
    func subscribe(_ connection: WebSocketConnection, session: Int64?, reply: [UInt8]) {
        queue.async {
            var inspector = self.inspectors[connection.id] ?? Inspector(connection: connection)
            if let session { inspector.sessions.insert(session) } else { inspector.all = true }
            self.inspectors[connection.id] = inspector
            _ = connection.send(textBytes: reply)
        }
    }

    func unsubscribe(_ connection: WebSocketConnection, session: Int64?, reply: [UInt8]) {
        queue.async {
            if var inspector = self.inspectors[connection.id] {
                if let session { inspector.sessions.remove(session) } else { inspector.all = false; inspector.sessions = [] }
                self.inspectors[connection.id] = inspector
            }
            _ = connection.send(textBytes: reply)
        }
    }

    func publish(event: WireEvent, session: String, sessionID: Int64, actionType: String) {
        queue.async {
            // Serialized only when someone is listening.
            guard self.inspectors.values.contains(where: { !$0.lagged && ($0.all || $0.sessions.contains(sessionID)) }) else { return }
            let bytes = InspectorPush.event(session: session, sessionID: sessionID, actionType: actionType, event: event)
                .json.serializedBytes(.compact)
            for (key, inspector) in self.inspectors where !inspector.lagged && (inspector.all || inspector.sessions.contains(sessionID)) {
                self.deliver(bytes, to: key, inspector)
            }
        }
    }

    /// Tells every inspector that a session started, resumed or ended.
    func publish(change: InspectorPush.SessionChange, session: WireSession) {
        queue.async {
            let bytes = InspectorPush.session(change: change, session: session).json.serializedBytes(.compact)
            for (key, inspector) in self.inspectors where !inspector.lagged {
                self.deliver(bytes, to: key, inspector)
            }
        }
    }

    private func deliver(_ bytes: [UInt8], to key: UInt64, _ inspector: Inspector) {
        switch inspector.connection.send(textBytes: bytes) {
        case .enqueued:
            break
        case .queueFull:
            inspectors[key]?.lagged = true
            scheduleLagCheck()
        case .closed:
            inspectors[key] = nil
        }
    }

    /// Polls lagged inspectors' queues until each has drained, then tells it `lagged`.
    private func scheduleLagCheck() {
        guard !lagCheckScheduled else { return }
        lagCheckScheduled = true
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) {
            self.lagCheckScheduled = false
            var stillLagging = false
            for (key, inspector) in self.inspectors where inspector.lagged {
                guard inspector.connection.isOpen else {
                    self.inspectors[key] = nil
                    continue
                }
                if inspector.connection.queuedMessageCount == 0 {
                    let message = InspectorPush.lagged(session: nil, message: "live events were dropped because this inspector did not read fast enough; fetch what you missed with events")
                    if inspector.connection.send(textBytes: message.json.serializedBytes(.compact)) == .enqueued {
                        self.inspectors[key]?.lagged = false
                        continue
                    }
                }
                stillLagging = true
            }
            if stillLagging { self.scheduleLagCheck() }
        }
    }

    /// Whether each inspector is lagged now, by connection id (for tests).
    func laggedStates() -> [UInt64: Bool] {
        queue.sync { inspectors.mapValues(\.lagged) }
    }
}
