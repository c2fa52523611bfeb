import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindSupport

/// One inspector connection (`rewind.inspect.v1`) that posts what it receives to a ``Mailbox``.
final class InspectorLink: WebSocketClientDelegate, @unchecked Sendable {
    let client: WebSocketClient
    let generation: Int
    private let mailbox: Mailbox
    private let connected = Mutex(false)

    /// Starts connecting to `url` (`ws://HOST:PORT/inspect`, or `wss://` trusting `caFile`
    /// besides the system's CAs) with `token` as a bearer token.
    init(url: String, token: String?, caFile: String? = nil, mailbox: Mailbox, generation: Int) throws {
        var headers: HTTPHeaders = [:]
        if let token { headers.set("Authorization", "Bearer \(token)") }
        do {
            client = try WebSocketClient(configuration: WebSocketClientConfiguration(
                url: url, subprotocol: InspectorRequest.subprotocol, headers: headers, caFile: caFile))
        } catch {
            if case .tls(let message) = error { throw CLIError("--ca-file: \(message)", code: 2) }
            throw CLIError("--server: \(error.description) (write ws://HOST:PORT/inspect)", code: 2)
        }
        self.mailbox = mailbox
        self.generation = generation
        do {
            try client.connect(delegate: self)
        } catch {
            throw CLIError("cannot connect to \(url): \(error.description)", code: 1)
        }
    }

    func send(_ request: InspectorRequest) {
        _ = client.send(text: request.json.serialized(.compact))
    }

    func close() {
        client.close(code: .normal)
    }

    func didConnect(_ connection: WebSocketConnection) {
        connected.withLock { $0 = true }
    }

    func didFailToConnect(reason: String) {
        mailbox.post(.lost(reason: reason, generation: generation, connected: false))
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        guard case .object(let object)? = try? JSONValue(parsing: message.bytes) else { return }
        mailbox.post(.message(object, generation: generation))
    }

    func didClose(_ connection: WebSocketConnection, code: WebSocketCloseCode) {
        mailbox.post(.lost(reason: "closed with \(code)", generation: generation, connected: connected.withLock { $0 }))
    }
}
