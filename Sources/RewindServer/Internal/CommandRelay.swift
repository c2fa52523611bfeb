import Dispatch
import RewindJSON
import RewindSupport
import RewindWebSocket
import RewindWire

/// Carries inspectors' commands to apps under server-side ids, and the apps' results back as
/// `{"type":"command","id":…,"ok":…,"message":…}` replies.
final class CommandRelay: @unchecked Sendable {
    private struct Pending {
        var inspector: WebSocketConnection
        var requestID: JSONValue
        var app: WebSocketConnection
        /// A branch's failure says that it needs the app's reducer.
        var isBranch: Bool
    }

    /// What an `app-offline` reply adds for a branch.
    static let branchNeedsApp = ", and a branch needs the app's reducer: start the app (it reconnects to this session) and ask again"

    private let timeout: Duration
    private let state = Mutex<(next: Int, pending: [String: Pending])>((1, [:]))

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Sends `command` to `app` and answers `inspector` when the app replies (or does not).
    func send(_ command: Command, to app: WebSocketConnection, from inspector: WebSocketConnection) {
        let serverID = state.withLock { state -> String in
            let id = "c\(state.next)"
            state.next += 1
            state.pending[id] = Pending(inspector: inspector, requestID: command.id, app: app, isBranch: command.kind == .branch)
            return id
        }
        var relayed = command
        relayed.id = .string(serverID)
        relayed.session = nil
        let bytes = ServerToApp.command(relayed).json.serializedBytes(.compact)
        switch app.send(textBytes: bytes) {
        case .enqueued:
            break
        case .queueFull:
            // The app is there; its connection's output is full (it reads slowly, or the command
            // is large). Only a gone app is `app-offline`.
            finish(serverID, with: WireError(.commandFailed, "the command (\(bytes.count) bytes) does not fit the app's connection now: \(app.queuedByteCount) bytes already wait to be sent to it; ask again once the app has read them", id: command.id).json)
            return
        case .closed:
            let extra = command.kind == .branch ? Self.branchNeedsApp : ""
            finish(serverID, with: WireError(.appOffline, "the session's app is not reachable\(extra)", id: command.id).json)
            return
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            self.finish(serverID, with: WireError(.commandFailed, "the app did not answer the command within \(seconds) s", id: command.id).json)
        }
    }

    /// An app answered a command.
    func result(_ result: AppMessage.CommandResult, from app: WebSocketConnection) {
        guard case .string(let serverID) = result.id else { return }
        let pending = state.withLock { $0.pending[serverID] }
        guard let pending, pending.app === app else { return }
        var reply: JSONObject = ["type": "command", "id": pending.requestID, "ok": .bool(result.ok)]
        if let message = result.message { reply["message"] = .string(message) }
        finish(serverID, with: .object(reply))
    }

    /// An app went away: its pending commands fail with `app-offline`.
    func appClosed(_ app: WebSocketConnection) {
        let ids = state.withLock { state in state.pending.filter { $0.value.app === app }.map(\.key) }
        for id in ids {
            finish(id, with: nil)
        }
    }

    private func finish(_ serverID: String, with reply: JSONValue?) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: serverID) }) else { return }
        let extra = pending.isBranch ? Self.branchNeedsApp : ""
        let message = reply ?? WireError(.appOffline, "the app disconnected before answering the command\(extra)", id: pending.requestID).json
        _ = pending.inspector.send(textBytes: message.serializedBytes(.compact))
    }
}
