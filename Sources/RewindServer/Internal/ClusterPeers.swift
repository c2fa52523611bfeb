import RewindJSON
import RewindLog
import RewindWebSocket
import RewindWire

/// What this instance asks of the other instances on a team store (``ClusterLink``): handed to
/// ``AppIngest`` and ``CommandRelay`` at init, `nil` on a store of one server.
protocol ClusterPeers: AnyObject, Sendable {
    /// Tells the others that a session started, resumed or ended here.
    func announce(_ change: InspectorPush.SessionChange, session: Int64)
    /// Asks whichever instance holds `session` to let it go (its app resumed here).
    func askToRelease(session: Int64)
    /// Whether an app streams `session` to any instance.
    func isLive(session: Int64) -> Bool
    /// The sessions an app streams to any instance.
    func liveSessionIDs() -> Set<Int64>
    /// Sends a command to the instance whose app streams `session`.
    func forward(command: JSONValue, session: Int64) throws(LogError)
    /// Sends an app's answer back to the instance that asked (`server`), for its request `id`.
    func reply(_ reply: JSONValue, to server: String, id: String)
}

/// What ``ClusterLink`` asks of this instance's side of the apps, given at its start.
protocol LocalApps: AnyObject {
    /// Whether an app streams `session` here now.
    func isStreaming(session: Int64) -> Bool
    /// Lets the session go: its app resumed on another instance.
    func letGo(session: Int64)
    /// The connection of the app that streams `session` here, if one does.
    func appConnection(for session: Int64) -> WebSocketConnection?
}

/// What ``ClusterLink`` hands the command relay: a command another instance stored for an app
/// here, and the answer to one this instance forwarded.
protocol RelayedCommands: AnyObject {
    func relay(command: JSONValue, to app: WebSocketConnection, forServer server: String)
    func remoteReply(id: String, reply: JSONValue)
}
