import RewindJSON
import RewindWire

extension WireSession {
    /// Whether the server's session is a branch (it replays another and its meta has a `branch`
    /// object), as `SessionInfo.isBranch` says of the log's.
    var isBranch: Bool {
        guard replayOf != nil, case .object? = meta["branch"] else { return false }
        return true
    }
}
