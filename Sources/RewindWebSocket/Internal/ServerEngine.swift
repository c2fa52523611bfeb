import CLibWebSockets
import RewindSupport

/// The machinery behind ``WebSocketServer``: one lws context with one vhost, driven by one service
/// thread. Properties marked "service thread" are touched only there; `control` is how other
/// threads ask for a shutdown and learn how start went.
final class ServerEngine: LWSEventHandler, @unchecked Sendable {
    enum Phase: Equatable {
        case idle
        case starting
        case running(port: Int)
        case failed(WebSocketError)
        case stopped
    }

    struct Control {
        var phase = Phase.idle
        var shutdownCode: WebSocketCloseCode?
        var forceStop = false
        var openConnections = 0
        /// Connections closed at accept by the ``HandshakeGate``.
        var refusedConnections = 0
    }

    /// The name of protocols[0], where plain HTTP lands; no client ever needs to offer it.
    static let httpProtocolName = "rewind-http-internal"

    let configuration: WebSocketServerConfiguration
    /// Changes of `phase` wake whoever waits for start to end; the other fields wake nobody.
    let control = Condition(Control())
    let waker = ServiceWaker()
    /// The cap on output queued across all connections.
    lazy var outputBudget = OutputBudget(limit: configuration.maxQueuedBytesTotal)
    let deferredHandoff: DeferredHandoff
    /// What the streamed responses hold (any thread).
    let streamMeter = HTTPStreamMeter()
    let thread = ServiceThread()
    let endpointsByPath: [String: WebSocketEndpoint]
    let subprotocols: Set<String>

    // Service thread.
    var delegate: (any WebSocketServerDelegate)?
    var context: LWSContext?
    var connections: [OpaquePointer: WebSocketConnection] = [:]
    var upgrades: [OpaquePointer: WebSocketUpgradeRequest] = [:]
    var transfers: [OpaquePointer: HTTPTransfer] = [:]
    var pendingDeferred: [UInt64: PendingDeferred] = [:]
    var streams: [OpaquePointer: ActiveStream] = [:]
    var streamsByGeneration: [UInt64: OpaquePointer] = [:]
    var nextDeferredGeneration: UInt64 = 0
    var shutdownCode: WebSocketCloseCode?
    let scratch = ScratchBuffer()

    init(configuration: WebSocketServerConfiguration, delegate: any WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
        self.deferredHandoff = DeferredHandoff(waker: waker)
        self.endpointsByPath = Dictionary(configuration.endpoints.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.subprotocols = Set(configuration.endpoints.map(\.subprotocol))
    }

    // MARK: Any thread

    /// Starts the service thread and waits until it listens (returning the port) or fails.
    func start() throws(WebSocketError) -> Int {
        try Self.validate(configuration)
        let begun = control.withLock { control -> Bool in
            guard control.phase == .idle, control.shutdownCode == nil else { return false }
            control.phase = .starting
            return true
        }
        guard begun else { throw .alreadyStarted }
        guard thread.start(name: "rewind-ws-serve", body: { self.run() }) else { throw .alreadyStarted }
        _ = control.wait(for: { $0.phase != .starting })
        switch control.withLock({ $0.phase }) {
        case .running(let port):
            return port
        case .failed(let error):
            thread.join()
            throw error
        default:
            thread.join()
            throw .contextCreationFailed("the service thread stopped while starting")
        }
    }

    /// Stops accepting, closes every connection with `code` after its queued output, and waits
    /// up to the grace period before dropping what is left. From the service thread itself
    /// (a delegate method) it only asks, since the thread cannot wait for itself.
    func shutdown(code: WebSocketCloseCode, wait: Bool = true) {
        control.withLock { control in
            if control.shutdownCode == nil { control.shutdownCode = code }
        }
        waker.wake()
        guard wait, !thread.isCurrent else { return }
        let deadline = MonotonicClock.deadline(after: configuration.shutdownGracePeriod)
        if !thread.join(until: deadline) {
            control.withLock { $0.forceStop = true }
            waker.wake()
            thread.join()
        }
    }

    static func validate(_ configuration: WebSocketServerConfiguration) throws(WebSocketError) {
        if let problem = configuration.tls?.check() { throw .tls(problem) }
        guard (0...65_535).contains(configuration.port) else {
            throw .invalidConfiguration("port \(configuration.port) is outside 0...65535")
        }
        guard configuration.maxMessageSize > 0 else {
            throw .invalidConfiguration("maxMessageSize must be positive")
        }
        guard configuration.queueLimits.maxMessages > 0, configuration.queueLimits.maxBytes > 0 else {
            throw .invalidConfiguration("queue limits must be positive")
        }
        guard configuration.receiveGathering >= .zero, configuration.receiveGathering <= .milliseconds(100) else {
            throw .invalidConfiguration("receiveGathering must be between 0 and 100 ms")
        }
        var paths = Set<String>()
        var names = Set<String>()
        for endpoint in configuration.endpoints {
            if let limit = endpoint.maxMessageSize, limit <= 0 {
                throw .invalidConfiguration("endpoint '\(endpoint.path)': maxMessageSize must be positive")
            }
            guard endpoint.path.hasPrefix("/") else {
                throw .invalidConfiguration("endpoint path '\(endpoint.path)' must start with '/'")
            }
            guard !endpoint.subprotocol.isEmpty, endpoint.subprotocol != httpProtocolName,
                  !endpoint.subprotocol.contains(where: { $0 == "," || $0 == " " }) else {
                throw .invalidConfiguration("endpoint subprotocol '\(endpoint.subprotocol)' is not a usable token")
            }
            guard paths.insert(endpoint.path).inserted else {
                throw .invalidConfiguration("path '\(endpoint.path)' is configured twice")
            }
            guard names.insert(endpoint.subprotocol).inserted else {
                throw .invalidConfiguration("subprotocol '\(endpoint.subprotocol)' is configured twice")
            }
        }
    }

    // MARK: Service thread

    private func run() {
        let context = LWSContext(handler: self)
        self.context = context
        if let failure = createContextAndVhost(context) {
            context.destroy()
            self.context = nil
            delegate = nil
            control.update(waking: .all) { $0.phase = .failed(failure) }
            return
        }
        serviceLoop(context)
        waker.detach()
        deferredHandoff.close()  // responses still being produced are dropped when they finish
        context.destroy()  // remaining connections get CLOSED (and didClose) here
        closeRemainingStreams()
        self.context = nil
        delegate = nil
        control.update(waking: .all) { $0.phase = .stopped }
    }

    /// Returns the error, or `nil` once the vhost listens and the phase says so.
    private func createContextAndVhost(_ context: LWSContext) -> WebSocketError? {
        var info = lws_context_creation_info()
        info.options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS)
        info.port = CONTEXT_PORT_NO_LISTEN
        info.gid = -1
        info.uid = -1
        info.max_http_header_data = 16 * 1024  // cookies for localhost pile up across dev servers
        info.server_string = context.cString("rewind")
        info.pt_serv_buf_size = UInt32(LWSContext.readBufferSize)
        let created: Bool
        if configuration.tls != nil {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            created = TLSContextGate.create(beginsHandshake: false, waitSeconds: 10) { context.create(&info) }
        } else {
            created = context.create(&info)
        }
        guard created, let pointer = context.pointer else {
            return .contextCreationFailed("lws_create_context failed (out of memory or file descriptors?)")
        }
        var vhost = lws_context_creation_info()
        vhost.port = Int32(configuration.port)
        vhost.iface = context.cString(configuration.host)
        vhost.vhost_name = context.cString("rewind")
        vhost.protocols = context.protocols(named: [Self.httpProtocolName] + configuration.endpoints.map(\.subprotocol))
        vhost.retry_and_idle_policy = context.retryPolicy(for: configuration.keepAlive)
        let (idleSeconds, idleFraction) = configuration.httpIdleTimeout.components
        vhost.keepalive_timeout = Int32(clamping: max(1, idleSeconds + (idleFraction > 0 ? 1 : 0)))
        vhost.gid = -1
        vhost.uid = -1
        var options = UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        if !configuration.host.contains(":") { options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
        // lws 4.1 sets up a vhost's TLS only when its own options ask for it too.
        if configuration.tls != nil { options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        vhost.options = options
        if let tls = configuration.tls {
            vhost.ssl_cert_filepath = context.cString(tls.certificatePath)
            vhost.ssl_private_key_filepath = context.cString(tls.privateKeyPath)
            // Never NULL: with none OpenSSL would ask for a passphrase on the terminal.
            vhost.ssl_private_key_password = context.cString("")
            // HTTP/1.1 only: the handlers here speak it, and WebSockets upgrade from it.
            vhost.alpn = context.cString("http/1.1")
        }
        guard let created = lws_create_vhost(pointer, &vhost) else {
            if let tls = configuration.tls, SocketAddress.canBind(host: configuration.host, port: configuration.port) {
                // The files passed their checks and the port is free: OpenSSL refused the pair.
                return .tls(tls.mismatch)
            }
            let reason = SocketAddress.bindFailureReason(host: configuration.host, port: configuration.port)
            return .cannotListen(host: configuration.host, port: configuration.port, reason: reason)
        }
        let port = Int(lws_get_vhost_listen_port(created))
        waker.attach(pointer)
        control.update(waking: .all) { $0.phase = .running(port: port) }
        return nil
    }

    private func serviceLoop(_ context: LWSContext) {
        guard let pointer = context.pointer else { return }
        while true {
            let (requested, force) = control.withLock { ($0.shutdownCode, $0.forceStop) }
            if force { break }
            if let requested, shutdownCode == nil { beginShutdown(code: requested) }
            if shutdownCode != nil, connections.isEmpty, transfers.isEmpty { break }
            let pass = servicePass(pointer)
            if pass.serviced < 0 { break }
            // A pass that read a little waits before the next look, so that what arrives
            // meanwhile is read in one pass (see `receiveGathering`). Each wake-up of this thread
            // costs more than reading a small frame; under a flood passes read a lot and never wait.
            if gatheringMicroseconds > 0, pass.bytes > 0, pass.bytes < Self.lightPassBytes {
                // What the pass's own work queued (the delegate may take light input on this
                // thread at the end of the pass: the pushes of the events it read) is written
                // before the wait rather than after it.
                let pending = waker.takePending()
                if !pending.isEmpty {
                    for core in pending { WebSocketIO.wake(core) }
                    let writing = servicePass(pointer, finishing: false)
                    if writing.serviced < 0 { break }
                    if writing.messages > 0 {
                        // What this writing pass read is the delegate's at the end of the next
                        // pass, with what arrives meanwhile; that pass must not wait for input.
                        carriedMessages = true
                        waker.wake()
                    }
                }
                usleep(gatheringMicroseconds)
            }
        }
    }

    /// One `lws_service` call, then (when `finishing`) the delegate's
    /// ``WebSocketServerDelegate/didFinishServicePass(readLittle:)`` if it or the writing pass
    /// before it delivered messages.
    private func servicePass(_ pointer: OpaquePointer, finishing: Bool = true) -> (serviced: Int32, bytes: Int, messages: Int) {
        passBytes = 0
        passMessages = 0
        let serviced = lws_service(pointer, 0)
        if finishing, passMessages > 0 || carriedMessages {
            carriedMessages = false
            delegate?.didFinishServicePass(readLittle: passBytes < Self.lightPassBytes)
        }
        return (serviced, passBytes, passMessages)
    }

    /// A writing pass (see `serviceLoop`) delivered messages whose pass end is the next pass's.
    private var carriedMessages = false
    /// WebSocket payload bytes read in the current service pass (service thread).
    private var passBytes = 0
    /// Messages delivered to the delegate in the current service pass (service thread).
    private var passMessages = 0
    /// The accepted connections that have not sent their request yet (service thread).
    private lazy var gate = HandshakeGate(limits: configuration.handshakeLimits)

    /// Whether the connection just accepted (`args`: lws' `lws_filter_network_conn_args`) may
    /// wait for its request; a refused one is closed before anything is read from it.
    private func admit(_ args: UnsafeMutableRawPointer?) -> Bool {
        guard let filter = args?.assumingMemoryBound(to: lws_filter_network_conn_args.self).pointee else { return true }
        var address = filter.cli_addr
        let peer: [UInt8] = withUnsafeBytes(of: &address) { raw in
            switch Int32(filter.cli_addr.ss_family) {
            case AF_INET: Array(raw[4..<8])       // sin_addr
            case AF_INET6: Array(raw[8..<24])     // sin6_addr
            default: []
            }
        }
        let admitted = gate.admit(descriptor: filter.accept_fd, peer: peer, now: UInt64(MonotonicClock.nanoseconds()))
        if !admitted { control.withLock { $0.refusedConnections = gate.refused } }
        return admitted
    }
    /// ``WebSocketServerConfiguration/receiveGathering`` in whole microseconds.
    private lazy var gatheringMicroseconds: UInt32 = {
        let (seconds, attoseconds) = configuration.receiveGathering.components
        return UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }()
    /// A pass that read less than this is light: less than half of what one read may take from
    /// one connection, so no connection had more waiting than a read could take.
    static let lightPassBytes = LWSContext.readBufferSize / 2

    private func beginShutdown(code: WebSocketCloseCode) {
        shutdownCode = code
        for connection in connections.values {
            connection.core.requestClose(code: code, reason: "server shutting down", wake: false)
            if let wsi = connection.core.wsi { lws_callback_on_writable(wsi) }
        }
        killStreams()
    }

    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            for core in waker.takePending() { WebSocketIO.wake(core) }
            takeFinishedDeferred()
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            guard shutdownCode == nil else { return 1 }
            return admit(input) ? 0 : 1
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            gate.requested(descriptor: lws_get_socket_fd(wsi))
            return confirmUpgrade(wsi, upgradeType: input)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return checkBoundProtocol(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            return opened(wsi)
        case LWS_CALLBACK_RECEIVE:
            return received(wsi, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connections[wsi] else { return 0 }
            return WebSocketIO.writable(on: connection.core, wsi: wsi, scratch: scratch, batching: true)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let connection = connections[wsi] { WebSocketIO.peerClosing(connection.core, input: input, length: length) }
            return 0
        case LWS_CALLBACK_CLOSED:
            closed(wsi)
            return 0
        case LWS_CALLBACK_HTTP:
            gate.requested(descriptor: lws_get_socket_fd(wsi))
            return respondToHTTP(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return httpWritable(wsi)
        case LWS_CALLBACK_CLOSED_HTTP:
            transfers[wsi] = nil
            upgrades[wsi] = nil
            forgetDeferred(on: wsi)
            endStream(on: wsi)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            gate.requested(descriptor: lws_get_socket_fd(wsi))
            transfers[wsi] = nil
            upgrades[wsi] = nil
            forgetDeferred(on: wsi)
            endStream(on: wsi)
            closed(wsi)
            return 0
        default:
            return 0
        }
    }

    private func received(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let connection = connections[wsi] else { return -1 }
        passBytes += length
        outputBudget.received(length)
        var closeNow = false
        if let message = WebSocketIO.receive(on: connection.core, wsi: wsi, input: input, length: length, closeNow: &closeNow) {
            passMessages += 1
            delegate?.didReceive(message, from: connection)
        }
        return closeNow ? -1 : 0
    }

    private func closed(_ wsi: OpaquePointer) {
        guard let connection = connections.removeValue(forKey: wsi) else { return }
        let core = connection.core
        let code = core.closeCode ?? shutdownCode ?? .abnormalClosure
        core.markClosed()
        control.withLock { $0.openConnections -= 1 }
        delegate?.didClose(connection, code: code)
    }
}
