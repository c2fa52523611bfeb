import RewindWebSocket

/// A server delegate that records everything and can echo, refuse upgrades and answer HTTP.
final class TestServerDelegate: WebSocketServerDelegate {
    struct State: Sendable {
        var opened: [WebSocketConnection] = []
        var received: [(connection: UInt64, message: WebSocketMessage)] = []
        var closed: [UInt64: WebSocketCloseCode] = [:]
        var upgradeRequests: [WebSocketUpgradeRequest] = []
        var httpRequests: [HTTPRequest] = []
    }

    let state = Recorder(State())
    private let echo: Bool
    private let accept: @Sendable (WebSocketUpgradeRequest) -> Bool
    private let http: @Sendable (HTTPRequest) -> HTTPResponse

    init(
        echo: Bool = true,
        accept: @escaping @Sendable (WebSocketUpgradeRequest) -> Bool = { _ in true },
        http: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in .notFound }
    ) {
        self.echo = echo
        self.accept = accept
        self.http = http
    }

    func shouldAccept(_ request: WebSocketUpgradeRequest) -> Bool {
        state.update { $0.upgradeRequests.append(request) }
        return accept(request)
    }

    func didOpen(_ connection: WebSocketConnection) {
        state.update { $0.opened.append(connection) }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        state.update { $0.received.append((connection.id, message)) }
        if echo { _ = connection.send(message) }
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        state.update { $0.closed[connection.id] = code }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        state.update { $0.httpRequests.append(request) }
        return http(request)
    }

    /// Waits for the `count`-th opened connection and returns it.
    func waitForConnection(_ count: Int = 1) -> WebSocketConnection? {
        guard state.wait({ $0.opened.count >= count }) else { return nil }
        return state.value.opened[count - 1]
    }
}
