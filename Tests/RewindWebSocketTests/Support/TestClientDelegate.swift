import RewindWebSocket

/// A client delegate that records what happens to one client.
final class TestClientDelegate: WebSocketClientDelegate {
    struct State: Sendable {
        var connected = false
        var failure: String?
        var received: [WebSocketMessage] = []
        var closeCode: WebSocketCloseCode?
        var isOver: Bool { failure != nil || closeCode != nil }
    }

    let state = Recorder(State())

    func didConnect(_ connection: WebSocketConnection) {
        state.update { $0.connected = true }
    }

    func didFailToConnect(reason: String) {
        state.update { $0.failure = reason }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        state.update { $0.received.append(message) }
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        state.update { $0.closeCode = code }
    }

    /// Waits until connected or failed; returns whether it connected.
    func waitForConnect(timeout: Duration = .seconds(30)) -> Bool {
        _ = state.wait(timeout: timeout) { $0.connected || $0.isOver }
        return state.value.connected
    }
}
