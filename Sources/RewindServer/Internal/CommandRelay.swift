import Dispatch
import RewindJSON
import RewindSupport
import RewindWebSocket
import RewindWire

/// Carries inspectors' commands to apps under server-side ids, and the apps' results back as
/// `{"type":"command","id":…,"ok":…,"message":…}` replies.
///
/// On a shared store the app may be connected to another server: the command then goes through
/// the ``ClusterLink`` (``sendRemote(_:session:from:)``), the server with the app relays it
/// (``relay(command:to:forServer:)``) and sends the result back (``remoteReply(id:reply:)``).
final class CommandRelay: RelayedCommands, @unchecked Sendable {
    /// Who waits for a command's result.
    private enum Origin {
        /// An inspector connected here, and the id its request carried.
        case inspector(WebSocketConnection, requestID: JSONValue)
        /// Another server, and the id it relayed the command under.
        case server(String, id: String)
    }

    private struct Pending {
        var origin: Origin
        /// The app's connection here; `nil` when the app is connected to another server.
        var app: WebSocketConnection?
        /// A branch's failure says that it needs the app's reducer.
        var isBranch: Bool
    }

    /// What an `app-offline` reply adds for a branch.
    static let branchNeedsApp = ", and a branch needs the app's reducer: start the app (it reconnects to this session) and ask again"

    private let timeout: Duration
    private let state = Mutex<(next: Int, pending: [String: Pending])>((1, [:]))
    /// The other instances of a team store; `nil` on a store of one server.
    let cluster: (any ClusterPeers)?

    init(timeout: Duration, cluster: (any ClusterPeers)?) {
        self.timeout = timeout
        self.cluster = cluster
    }

    private var timeoutSeconds: Double { timeout.seconds }

    private func register(_ pending: Pending) -> String {
        state.withLock { state -> String in
            let id = "c\(state.next)"
            state.next += 1
            state.pending[id] = pending
            return id
        }
    }

    /// Sends `command` to `app` and answers `inspector` when the app replies (or does not).
    func send(_ command: Command, to app: WebSocketConnection, from inspector: WebSocketConnection) {
        let serverID = register(Pending(origin: .inspector(inspector, requestID: command.id), app: app, isBranch: command.kind == .branch))
        var relayed = command
        relayed.id = .string(serverID)
        relayed.session = nil
        deliver(ServerToApp.command(relayed).json.serializedBytes(.compact), serverID: serverID, to: app, isBranch: command.kind == .branch)
    }

    /// Sends `command` to the server whose app streams `session`, and answers `inspector` when
    /// that app replies (or does not, within the timeout).
    func sendRemote(_ command: Command, session: Int64, from inspector: WebSocketConnection) {
        guard let cluster else { return }
        let serverID = register(Pending(origin: .inspector(inspector, requestID: command.id), app: nil, isBranch: command.kind == .branch))
        var relayed = command
        relayed.id = .string(serverID)
        relayed.session = nil
        do {
            try cluster.forward(command: ServerToApp.command(relayed).json, session: session)
        } catch {
            finish(serverID, with: WireError(.commandFailed, "the command could not reach the server the app is connected to: \(error)", id: command.id).json)
            return
        }
        scheduleTimeout(serverID, id: command.id)
    }

    /// Another server's command (a `command` message for apps, with that server's id) for the
    /// app connected here.
    func relay(command message: JSONValue, to app: WebSocketConnection, forServer server: String) {
        // Only a command goes to the app, decoded and written again as this server writes one:
        // whatever else a message holds (another type, an ack) never reaches it.
        guard case .command(var command) = try? ServerToApp(json: message), case .string(let theirID) = command.id else { return }
        let isBranch = command.kind == .branch
        let serverID = register(Pending(origin: .server(server, id: theirID), app: app, isBranch: isBranch))
        command.id = .string(serverID)
        command.session = nil
        deliver(ServerToApp.command(command).json.serializedBytes(.compact), serverID: serverID, to: app, isBranch: isBranch)
    }

    /// The answer to a command this server sent another (``sendRemote(_:session:from:)``).
    func remoteReply(id: String, reply: JSONValue) {
        guard let pending = state.withLock({ $0.pending[id] }), case .inspector(_, let requestID) = pending.origin else { return }
        if reply["offline"]?.boolValue == true {
            finish(id, with: nil)
            return
        }
        var answer: JSONObject = ["type": "command", "id": requestID, "ok": reply["ok"] ?? .bool(false)]
        if let message = reply["message"] { answer["message"] = message }
        finish(id, with: .object(answer))
    }

    private func deliver(_ bytes: [UInt8], serverID: String, to app: WebSocketConnection, isBranch: Bool) {
        let requestID = state.withLock { state -> JSONValue? in
            if case .inspector(_, let requestID) = state.pending[serverID]?.origin { return requestID }
            return nil
        }
        switch app.send(textBytes: bytes) {
        case .enqueued:
            break
        case .queueFull:
            // The app is there; its connection's output is full (it reads slowly, or the command
            // is large). Only a gone app is `app-offline`.
            finish(serverID, with: WireError(.commandFailed, "the command (\(bytes.count) bytes) does not fit the app's connection now: \(app.queuedByteCount) bytes already wait to be sent to it; ask again once the app has read them", id: requestID).json)
            return
        case .closed:
            let extra = isBranch ? Self.branchNeedsApp : ""
            finish(serverID, with: WireError(.appOffline, "the session's app is not reachable\(extra)", id: requestID).json)
            return
        }
        scheduleTimeout(serverID, id: requestID)
    }

    private func scheduleTimeout(_ serverID: String, id: JSONValue?) {
        let seconds = timeoutSeconds
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            self.finish(serverID, with: WireError(.commandFailed, "the app did not answer the command within \(seconds) s", id: id).json)
        }
    }

    /// An app answered a command.
    func result(_ result: AppMessage.CommandResult, from app: WebSocketConnection) {
        guard case .string(let serverID) = result.id else { return }
        let pending = state.withLock { $0.pending[serverID] }
        guard let pending, pending.app === app else { return }
        switch pending.origin {
        case .inspector(_, let requestID):
            var reply: JSONObject = ["type": "command", "id": requestID, "ok": .bool(result.ok)]
            if let message = result.message { reply["message"] = .string(message) }
            finish(serverID, with: .object(reply))
        case .server:
            var reply: JSONObject = ["ok": .bool(result.ok)]
            if let message = result.message { reply["message"] = .string(message) }
            finish(serverID, with: .object(reply))
        }
    }

    /// An app went away: its pending commands fail with `app-offline`.
    func appClosed(_ app: WebSocketConnection) {
        let ids = state.withLock { state in state.pending.filter { $0.value.app === app }.map(\.key) }
        for id in ids {
            finish(id, with: nil)
        }
    }

    /// Ends a pending command: `reply` goes to whoever waits (`nil`: the app went away).
    private func finish(_ serverID: String, with reply: JSONValue?) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: serverID) }) else { return }
        switch pending.origin {
        case .inspector(let inspector, let requestID):
            let extra = pending.isBranch ? Self.branchNeedsApp : ""
            let message = reply ?? WireError(.appOffline, "the app disconnected before answering the command\(extra)", id: requestID).json
            _ = inspector.send(textBytes: message.serializedBytes(.compact))
        case .server(let server, let theirID):
            // The asking server builds its inspector's reply; an error of ours travels whole.
            var answer: JSONObject = ["offline": .bool(reply == nil)]
            if let reply {
                if reply["type"]?.stringValue == "error" {
                    answer["ok"] = .bool(false)
                    answer["message"] = reply["message"] ?? .string("the command failed")
                } else {
                    answer["ok"] = reply["ok"] ?? .bool(false)
                    if let message = reply["message"] { answer["message"] = message }
                }
            }
            cluster?.reply(.object(answer), to: server, id: theirID)
        }
    }
}
