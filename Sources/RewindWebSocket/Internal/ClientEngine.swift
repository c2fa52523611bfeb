import CLibWebSockets
import Foundation
import RewindSupport

/// The machinery behind ``WebSocketClient``: one lws context with one client connection, driven
/// by one service thread that ends (destroying the context) when the connection does.
final class ClientEngine: LWSEventHandler, @unchecked Sendable {
    enum Phase: Equatable {
        case idle
        case running
        case finished
    }

    struct Control {
        var phase = Phase.idle
    }

    /// The local protocol name when no subprotocol is asked for.
    static let anonymousProtocolName = "rewind-client-internal"

    let configuration: WebSocketClientConfiguration
    let url: ClientURL
    /// The CA file to trust (``WebSocketClientConfiguration/caFile``), read when the client is made.
    let trustedCA: TrustedCAFile?
    /// The end of the connection (`finished`) wakes whoever waits for it.
    let control = Condition(Control())
    let waker = ServiceWaker()
    let thread = ServiceThread()
    let core: ConnectionCore
    let connection: WebSocketConnection

    // Service thread.
    private var delegate: (any WebSocketClientDelegate)?
    private var established = false
    private var ended = false
    /// A received message was refused: the connection closes from the next writable callback.
    private var refusing = false
    /// This client's TLS handshake counts in ``TLSContextGate`` until it is over.
    private var handshakeCounted = false
    /// Why the server's certificate failed verification, when it did (OpenSSL's words).
    private var certificateProblem: String?
    private let scratch = ScratchBuffer()

    init(configuration: WebSocketClientConfiguration) throws(WebSocketError) {
        guard configuration.maxMessageSize > 0 else {
            throw .invalidConfiguration("maxMessageSize must be positive")
        }
        guard configuration.queueLimits.maxMessages > 0, configuration.queueLimits.maxBytes > 0 else {
            throw .invalidConfiguration("queue limits must be positive")
        }
        self.configuration = configuration
        self.url = try ClientURL(configuration.url)
        if let caFile = configuration.caFile {
            switch TrustedCAFile.load(caFile) {
            case .success(let loaded): trustedCA = loaded
            case .failure(let problem): throw .tls(problem.message)
            }
        } else {
            trustedCA = nil
        }
        self.core = ConnectionCore(
            id: ConnectionID.next(),
            limits: configuration.queueLimits,
            maxMessageSize: configuration.maxMessageSize,
            waker: waker
        )
        self.connection = WebSocketConnection(
            core: core,
            path: url.path,
            subprotocol: configuration.subprotocol ?? "",
            remoteAddress: url.hostHeader,
            request: nil
        )
    }

    // MARK: Any thread

    func connect(delegate: any WebSocketClientDelegate) throws(WebSocketError) {
        let begun = control.withLock { control -> Bool in
            guard control.phase == .idle else { return false }
            control.phase = .running
            return true
        }
        guard begun else { throw .alreadyStarted }
        self.delegate = delegate  // before the thread exists, so no race
        guard thread.start(name: "rewind-ws-conn", body: { self.run() }) else { throw .alreadyStarted }
    }

    // MARK: Service thread

    private func run() {
        let context = LWSContext(handler: self)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.gid = -1
        info.uid = -1
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        info.protocols = context.protocols(named: [configuration.subprotocol ?? Self.anonymousProtocolName])
        info.connect_timeout_secs = configuration.connectTimeoutSeconds
        info.timeout_secs = configuration.connectTimeoutSeconds
        let (created, counted) = context.createForClient(&info, of: url, trusting: trustedCA,
                                                         waitSeconds: Double(configuration.connectTimeoutSeconds))
        handshakeCounted = counted
        if created, let pointer = context.pointer {
            waker.attach(pointer)
            if startConnecting(context, pointer) {
                serviceLoop(pointer)
            }
        } else {
            report(failure: "cannot create the libwebsockets context")
        }
        waker.detach()
        context.destroy()
        endHandshake()
        if !ended { report(failure: "cancelled before the connection opened") }
        core.markClosed()
        delegate = nil
        control.update(waking: .all) { $0.phase = .finished }
    }

    private func startConnecting(_ context: LWSContext, _ pointer: OpaquePointer) -> Bool {
        var info = lws_client_connect_info()
        info.context = pointer
        info.address = context.cString(url.address)
        info.port = Int32(url.port)
        info.path = context.cString(url.pathAndQuery)
        info.host = context.cString(url.hostHeader)
        // Not info.origin: lws 4.1 writes it as "http://" + origin, mangling a real Origin.
        let localName = context.cString(configuration.subprotocol ?? Self.anonymousProtocolName)
        info.protocol = configuration.subprotocol == nil ? nil : localName
        info.local_protocol_name = localName
        info.retry_and_idle_policy = context.retryPolicy(for: configuration.keepAlive)
        if url.isSecure {
            // Verified against the CAs and for the URL's host name; HTTP/1.1, where the upgrade is.
            info.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue)
            info.alpn = context.cString("http/1.1")
        }
        guard lws_client_connect_via_info(&info) != nil else {
            if !ended { report(failure: "cannot start connecting to \(url.hostHeader)") }
            return false
        }
        return true
    }

    private func serviceLoop(_ pointer: OpaquePointer) {
        while !ended {
            if lws_service(pointer, 0) < 0 { break }
        }
    }

    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            for core in waker.takePending() { WebSocketIO.wake(core) }
            if !established, core.hasCloseRequest, !ended {
                report(failure: "closed before the connection opened")
            }
            return 0
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi, input, length)
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            endHandshake()
            established = true
            core.wsi = wsi
            delegate?.didConnect(connection)
            if core.hasPendingOutput { lws_callback_on_writable(wsi) }
            return 0
        case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
            // `length` is OpenSSL's preverify_ok. The verdict stays OpenSSL's (returning 0 keeps
            // it); this only keeps its reason for the failure below.
            if length == 0, certificateProblem == nil {
                certificateProblem = rewind_x509_verify_error(input).map { String(cString: $0) } ?? "verification failed"
            }
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            endHandshake()
            if !ended {
                if let certificateProblem {
                    report(failure: "the server's certificate is not trusted (\(certificateProblem)); "
                        + "trust the CA that signed it with a CA file (--ca-file, REWIND_CA_FILE)")
                    return 0
                }
                var reason = Self.reason(input, length) ?? "connection failed"
                // An upgrade answered with an HTTP status (403 when the token is wrong): say which.
                let status = lws_http_client_http_response(wsi)
                if status >= 300 { reason += " (HTTP \(status))" }
                report(failure: reason)
            }
            return 0
        case LWS_CALLBACK_CLIENT_RECEIVE:
            // Once a message is refused (past the limit, or invalid UTF-8) nothing more is read:
            // the rest of it would start a message of its own.
            if refusing { return 0 }
            var closeNow = false
            if let message = WebSocketIO.receive(on: core, wsi: wsi, input: input, length: length, closeNow: &closeNow,
                                                 deferringReason: true) {
                delegate?.didReceive(message, from: connection)
            }
            guard closeNow else { return 0 }
            // The close goes out from the writable callback, its reason handed over there. A client
            // that returns -1 here, or sets a close reason while the rest of the frame is still
            // being parsed, has libwebsockets 4.1 write past its receive buffer when the message
            // came in one read with the handshake: `rewind tail` died on a message past 16 MiB.
            refusing = true
            lws_callback_on_writable(wsi)
            return 0
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            if refusing {
                WebSocketIO.setCloseReason(core.closeCode ?? .messageTooLarge, on: wsi)
                return -1
            }
            return WebSocketIO.writable(on: core, wsi: wsi, scratch: scratch)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            WebSocketIO.peerClosing(core, input: input, length: length)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED:
            reportClosed()
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            if established, wsi == core.wsi { reportClosed() }
            return 0
        default:
            return 0
        }
    }

    private func appendHeaders(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        var headers = configuration.headers
        if let origin = configuration.origin { headers.set("origin", origin) }
        return headers.appendToRequest(wsi, input, length)
    }

    /// The reason lws gives with `CLIENT_CONNECTION_ERROR`: `len` bytes when it says how many,
    /// else a C string.
    private static func reason(_ input: UnsafeMutableRawPointer?, _ length: Int) -> String? {
        guard let input else { return nil }
        let text = length > 0
            ? String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
            : String(cString: input.assumingMemoryBound(to: CChar.self))
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "\0").union(.whitespacesAndNewlines))
        return trimmed.isEmpty ? nil : trimmed
    }

    private func endHandshake() {
        guard handshakeCounted else { return }
        handshakeCounted = false
        TLSContextGate.handshakeEnded()
    }

    private func reportClosed() {
        guard !ended else { return }
        ended = true
        let code = core.closeCode ?? .abnormalClosure
        core.markClosed()
        delegate?.didClose(connection, code: code)
    }

    private func report(failure reason: String) {
        ended = true
        core.markClosed()
        delegate?.didFailToConnect(reason: reason)
    }
}
