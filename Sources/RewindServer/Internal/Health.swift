import RewindLog
import RewindWebSocket

/// `GET /healthz` and `GET /readyz`, for a load balancer or an orchestrator, without a token
/// (they say nothing of the log): live while the server answers; ready when it takes apps and
/// its log takes writes: not with `--read-only`, and on a team store only while the database
/// answers (a new connection is opened for each check, off the service thread).
struct Health: Sendable {
    let store: any LogStore
    let readOnly: Bool

    static let livePath = "/healthz"
    static let readyPath = "/readyz"

    /// The answer to `request` when it asks for health, else `nil`.
    func answer(_ request: HTTPRequest) -> HTTPResponse? {
        switch request.path {
        case Self.livePath:
            return .text("ok\n")
        case Self.readyPath:
            if readOnly { return .text("not ready: this server runs with --read-only and takes no app\n", status: 503) }
            guard store.isShared else { return .text("ready\n") }
            let store = self.store
            return .deferred {
                do {
                    _ = try store.openReader()
                    return .text("ready\n")
                } catch {
                    return .text("not ready: \(error)\n", status: 503)
                }
            }
        default:
            return nil
        }
    }
}
