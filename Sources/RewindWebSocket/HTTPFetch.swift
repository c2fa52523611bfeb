import CLibWebSockets
import Foundation
import RewindSupport

/// One HTTP/1.1 `GET` over `http` or `https` on libwebsockets' client, on the calling thread:
/// for commands that read from `rewind serve` over TLS (`rewind test --server` fetching an
/// export). The body is bounded, the whole exchange has a deadline, and every failure is one
/// sentence (an untrusted certificate in the same words as ``WebSocketClient``'s).
///
/// ```swift
/// let page = try HTTPFetch.get("https://127.0.0.1:7433/export/latest", caFile: "ca.pem")
/// ```
public enum HTTPFetch {
    /// What the server answered.
    public struct Response: Sendable {
        public var status: Int
        /// The headers libwebsockets knows by name, plus the `x-rewind-*` ones, in lower case.
        public var headers: HTTPHeaders
        public var body: [UInt8]
    }

    /// Headers outside libwebsockets' list that are read from the answer.
    static let customHeaders = ["x-rewind-app", "x-rewind-session-id"]

    /// Fetches `url` (`http://` or `https://`), sending `headers`, trusting `caFile` besides
    /// the system's CAs for `https`. Fails when the body passes `maxBodySize` bytes or the whole
    /// exchange takes longer than `timeoutSeconds`.
    public static func get(_ url: String, headers: HTTPHeaders = [:], caFile: String? = nil,
                           maxBodySize: Int = 256 << 20, timeoutSeconds: UInt32 = 60) throws(WebSocketError) -> Response {
        let target = try ClientURL(url, web: true)
        var trusted: TrustedCAFile?
        if let caFile {
            switch TrustedCAFile.load(caFile) {
            case .success(let loaded): trusted = loaded
            case .failure(let problem): throw .tls(problem.message)
            }
        }
        let engine = FetchEngine(url: target, headers: headers, maxBodySize: maxBodySize, timeoutSeconds: timeoutSeconds)
        switch engine.run(trusted: trusted) {
        case .success(let response): return response
        case .failure(let failure): throw failure
        }
    }
}

/// The callbacks of one fetch; everything runs on the caller's thread.
private final class FetchEngine: LWSEventHandler {
    let url: ClientURL
    let headers: HTTPHeaders
    let maxBodySize: Int
    let timeoutSeconds: UInt32
    private var status = 0
    private var received: HTTPHeaders = [:]
    private var body: [UInt8] = []
    private var outcome: Result<HTTPFetch.Response, WebSocketError>?
    private var certificateProblem: String?
    private var handshakeCounted = false
    private let readBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(rewind_lws_pre()) + 16 * 1024)

    init(url: ClientURL, headers: HTTPHeaders, maxBodySize: Int, timeoutSeconds: UInt32) {
        self.url = url
        self.headers = headers
        self.maxBodySize = maxBodySize
        self.timeoutSeconds = timeoutSeconds
    }

    deinit {
        readBuffer.deallocate()
    }

    func run(trusted: TrustedCAFile?) -> Result<HTTPFetch.Response, WebSocketError> {
        let context = LWSContext(handler: self)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.gid = -1
        info.uid = -1
        info.protocols = context.protocols(named: ["rewind-fetch"])
        info.connect_timeout_secs = timeoutSeconds
        info.timeout_secs = timeoutSeconds
        let (created, counted) = context.createForClient(&info, of: url, trusting: trusted, waitSeconds: Double(timeoutSeconds))
        handshakeCounted = counted
        defer { context.destroy(); endHandshake() }
        guard created, let pointer = context.pointer else {
            return .failure(.contextCreationFailed("lws_create_context failed for a request to \(url.hostHeader)"))
        }
        var connect = lws_client_connect_info()
        connect.context = pointer
        connect.address = context.cString(url.address)
        connect.port = Int32(url.port)
        connect.path = context.cString(url.pathAndQuery)
        connect.host = context.cString(url.hostHeader)
        connect.method = context.cString("GET")
        connect.protocol = context.cString("rewind-fetch")
        connect.local_protocol_name = context.cString("rewind-fetch")
        connect.alpn = context.cString("http/1.1")
        connect.ssl_connection = Int32(LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue) | (url.isSecure ? Int32(LCCSCF_USE_SSL.rawValue) : 0)
        guard let wsi = lws_client_connect_via_info(&connect) else {
            return outcome ?? .failure(.requestFailed("cannot start connecting to \(url.hostHeader)"))
        }
        // The whole exchange, not only the connect: a server that trickles is cut off.
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLIENT_CONN_IDLE, Int32(timeoutSeconds))
        while outcome == nil {
            if lws_service(pointer, 0) < 0 { break }
        }
        return outcome ?? .failure(.requestFailed("the request to \(url.hostHeader) ended without an answer"))
    }

    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
            if length == 0, certificateProblem == nil {
                certificateProblem = rewind_x509_verify_error(input).map { String(cString: $0) } ?? "verification failed"
            }
            return 0
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return headers.appendToRequest(wsi, input, length)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            endHandshake()
            if let certificateProblem {
                finish(.failure(.tls("the server's certificate is not trusted (\(certificateProblem)); "
                    + "trust the CA that signed it with a CA file (--ca-file, REWIND_CA_FILE)")))
            } else {
                let said = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
                finish(.failure(.requestFailed("cannot reach \(url.hostHeader): \(said.lowercased())")))
            }
            return 0
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            endHandshake()
            status = Int(lws_http_client_http_response(wsi))
            received = Self.headers(of: wsi)
            return 0
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            let pre = Int(rewind_lws_pre())
            var cursor: UnsafeMutablePointer<CChar>? = readBuffer + pre
            var room = Int32(16 * 1024)
            return lws_http_client_read(wsi, &cursor, &room) < 0 ? -1 : 0
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            guard let input else { return 0 }
            guard body.count + length <= maxBodySize else {
                finish(.failure(.requestFailed("the answer from \(url.hostHeader) is larger than \(maxBodySize) bytes")))
                return -1
            }
            body += UnsafeRawBufferPointer(start: input, count: length)
            return 0
        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            finish(.success(HTTPFetch.Response(status: status, headers: received, body: body)))
            return 0
        case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
            // Closed before the body was complete (a length-less body ends here too).
            if status > 0 {
                finish(.success(HTTPFetch.Response(status: status, headers: received, body: body)))
            } else {
                finish(.failure(.requestFailed("\(url.hostHeader) closed the connection before answering")))
            }
            return 0
        default:
            return 0
        }
    }

    private func finish(_ result: Result<HTTPFetch.Response, WebSocketError>) {
        if outcome == nil { outcome = result }
    }

    private func endHandshake() {
        guard handshakeCounted else { return }
        handshakeCounted = false
        TLSContextGate.handshakeEnded()
    }

    /// The answer's headers that lws parsed: the common ones by token, the `x-rewind-*` by name.
    private static func headers(of wsi: OpaquePointer) -> HTTPHeaders {
        var result: HTTPHeaders = [:]
        let known: [(String, lws_token_indexes)] = [
            ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE), ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH),
            ("set-cookie", WSI_TOKEN_HTTP_SET_COOKIE), ("retry-after", WSI_TOKEN_HTTP_RETRY_AFTER),
        ]
        for (name, token) in known {
            if let value = RequestReader.header(wsi, token) { result.add(name, value) }
        }
        for name in HTTPFetch.customHeaders {
            var buffer = [CChar](repeating: 0, count: 1024)
            let copied = lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), name + ":", Int32(name.count + 1))
            if copied > 0 { result.add(name, String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        }
        return result
    }
}
