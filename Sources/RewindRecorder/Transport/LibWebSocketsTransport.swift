#if os(Linux) && !REWIND_APPLE_SHAPES
import Foundation
import RewindSupport
import RewindWebSocket

/// The Linux transport: Rewind's libwebsockets client (libwebsockets is linked on Linux only).
final class LibWebSocketsTransportConnection: TransportConnection, @unchecked Sendable {
    private let request: TransportRequest
    private struct Shared {
        var client: WebSocketClient?
        var closedBeforeOpen = false
    }

    private let shared = Mutex(Shared())

    init(request: TransportRequest) {
        self.request = request
    }

    func open(listener: any TransportListener) {
        var headers: HTTPHeaders = [:]
        if let token = request.token { headers.add("Authorization", "Bearer \(token)") }
        let configuration = WebSocketClientConfiguration(
            url: request.url.absoluteString, subprotocol: request.subprotocol, headers: headers,
            queueLimits: WebSocketQueueLimits(maxMessages: request.maxQueuedMessages, maxBytes: request.maxQueuedBytes),
            caFile: request.caFile)
        do {
            let client = try WebSocketClient(configuration: configuration)
            let proceed = shared.withLock { shared in
                if !shared.closedBeforeOpen { shared.client = client }
                return !shared.closedBeforeOpen
            }
            guard proceed else { return }
            try client.connect(delegate: Listener(listener))
        } catch {
            // A wrong URL or CA file does not mend by retrying.
            let isPermanent = switch error {
            case .invalidURL, .tls: true
            default: false
            }
            listener.transportDidFail(TransportFailure(reason: "\(error)", isPermanent: isPermanent))
        }
    }

    func send(text: String) -> Bool {
        shared.withLock { $0.client }?.send(text: text) == .enqueued
    }

    func close(goingAway: Bool) {
        let open = shared.withLock { shared in
            if shared.client == nil { shared.closedBeforeOpen = true }
            return shared.client
        }
        open?.close(code: goingAway ? .goingAway : .normal)
    }

    var isFinished: Bool {
        shared.withLock { $0.client }?.isFinished ?? true
    }

    func waitUntilFinished(timeout: Duration) -> Bool {
        guard let client = shared.withLock({ $0.client }) else { return true }
        return client.waitUntilFinished(timeout: timeout)
    }

    /// Forwards the client's callbacks.
    private final class Listener: WebSocketClientDelegate, Sendable {
        private let listener: any TransportListener

        init(_ listener: any TransportListener) {
            self.listener = listener
        }

        func didConnect(_ connection: WebSocketConnection) {
            listener.transportDidConnect()
        }

        func didFailToConnect(reason: String) {
            listener.transportDidFail(TransportFailure(reason: reason))
        }

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            listener.transportDidReceive(message.bytes)
        }

        func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
            listener.transportDidClose()
        }
    }
}
#endif
