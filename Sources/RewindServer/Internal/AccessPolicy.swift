import RewindWebSocket

/// Who may connect: a WebSocket whose `Origin` is a page other than the server's own is refused
/// (a web page must not read an app's state through localhost), and with a token every upgrade
/// and page request must carry one: `?token=`, `Authorization: Bearer`, or the `rewind_token`
/// cookie the server sets on a page opened with `?token=`.
///
/// Tokens have scopes. The server's token (`--token`) opens everything; the app token
/// (`--app-token`) only streaming on `/app`; the inspect token (`--inspect-token`) only the
/// inspector side: `/inspect`, the page and `/export`. A request carrying a token of the other
/// scope is refused with `403` and a sentence saying what that token may do; one carrying no
/// valid token gets the refusals it always got (`403` for an upgrade, `401` for a page).
///
/// Without a token the server listens on loopback only, and then every request must name a
/// loopback host (`Host: 127.0.0.1:7433`, `localhost`, `[::1]`): a web page that rebinds its own
/// domain name to 127.0.0.1 would otherwise be same-origin with the server and read the log.
struct AccessPolicy: Sendable {
    static let cookieName = "rewind_token"
    let token: String?
    let appToken: String?
    let inspectToken: String?

    /// Requests refused for their token, by address (``TokenFailures``).
    let failures: TokenFailures?

    init(token: String?, appToken: String? = nil, inspectToken: String? = nil, failures: TokenFailures? = nil) {
        func present(_ value: String?) -> String? { (value ?? "").isEmpty ? nil : value }
        self.token = present(token)
        self.appToken = present(appToken)
        self.inspectToken = present(inspectToken)
        self.failures = failures
    }

    static func slowedSentence(_ seconds: Int) -> String {
        "too many requests with a wrong or missing token came from this address: it may try again in \(seconds) s"
    }

    /// What a request asks for: streaming (`/app`) or the inspector side.
    enum Scope: Equatable {
        case app
        case inspect
    }

    enum PageDecision: Equatable {
        case allowed(setCookie: String?)
        case refused
        /// A valid token of the other scope: `403` with this sentence.
        case wrongScope(String)
        case foreignHost
        /// The address keeps failing: refused unread for this many more seconds (`429`).
        case slowed(Int)
    }

    /// What the tokens a request carries open.
    private enum Credential: Equatable {
        case none
        case opens(matched: String)
        case otherScope
    }

    static let appTokenOnInspect = "this is the app token, which may only stream sessions to /app; "
        + "the inspector, /inspect and /export need the inspect token or the server's token"
    static let inspectTokenOnApp = "this is the inspect token, which may only read and send commands; "
        + "apps stream to /app with the app token or the server's token"

    func refusal(of request: WebSocketUpgradeRequest) -> WebSocketRefusal? {
        if !hasToken, !Self.isLoopbackHost(request.host) {
            return WebSocketRefusal(status: 403, reason: "this server answers only requests for 127.0.0.1, localhost or [::1]")
        }
        if let origin = request.origin, !Self.isSameOrigin(origin, host: request.host) {
            return WebSocketRefusal(status: 403, reason: "a WebSocket from another page's origin is refused; only the server's own page may connect")
        }
        if hasToken, let seconds = failures?.slowed(request.remoteAddress) {
            return WebSocketRefusal(status: 429, reason: Self.slowedSentence(seconds))
        }
        let scope: Scope = request.path == "/app" ? .app : .inspect
        switch credential(for: scope, query: request.queryValue("token"), headers: request.headers) {
        case .opens: return nil
        case .otherScope:
            return WebSocketRefusal(status: 403, reason: scope == .app ? Self.inspectTokenOnApp : Self.appTokenOnInspect)
        case .none:
            failures?.failed(request.remoteAddress, path: request.path)
            return WebSocketRefusal(status: 403, reason: "this server needs its token: send it as Authorization: Bearer TOKEN or ?token=TOKEN")
        }
    }

    func checkPage(_ request: HTTPRequest) -> PageDecision {
        guard hasToken else {
            return Self.isLoopbackHost(request.headers["host"]) ? .allowed(setCookie: nil) : .foreignHost
        }
        if let seconds = failures?.slowed(request.remoteAddress) { return .slowed(seconds) }
        let query = request.queryValue("token")
        switch credential(for: .inspect, query: query, headers: request.headers) {
        case .none:
            failures?.failed(request.remoteAddress, path: request.path)
            return .refused
        case .otherScope: return .wrongScope(Self.appTokenOnInspect)
        case .opens(let matched):
            if let query, Self.equal(query, matched) {
                // The page's own WebSockets then carry the token without it showing in scripts.
                return .allowed(setCookie: "\(Self.cookieName)=\(Self.cookieSafe(matched)); Path=/; HttpOnly; SameSite=Strict")
            }
            return .allowed(setCookie: nil)
        }
    }

    private var hasToken: Bool { token != nil || appToken != nil || inspectToken != nil }

    /// Whether a `Host` header names this machine's loopback, exactly: `localhost`, `127.x.x.x`
    /// or `[::1]`, each alone or followed by `:PORT` (1 to 65535). Anything else after the name,
    /// such as `[::1]evil.example` or `localhost:`, is not loopback.
    static func isLoopbackHost(_ host: String?) -> Bool {
        guard let host = host?.lowercased(), !host.isEmpty else { return false }
        let name: Substring
        let rest: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            rest = host[host.index(after: close)...]
            guard name == "::1" else { return false }
        } else if let colon = host.lastIndex(of: ":") {
            name = host[..<colon]
            rest = host[colon...]
        } else {
            name = host[...]
            rest = ""
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), (1...65_535).contains(number) else { return false }
        }
        if name == "::1" || name == "localhost" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }

    /// Which token the request carries, judged for `scope`: one that opens it, one of the other
    /// scope, or none. Every presented value is compared with every token, in constant time each.
    private func credential(for scope: Scope, query: String?, headers: HTTPHeaders) -> Credential {
        guard hasToken else { return .opens(matched: "") }
        var presented: [(value: String, cookie: Bool)] = []
        if let query { presented.append((query, false)) }
        if let authorization = headers["authorization"], authorization.lowercased().hasPrefix("bearer ") {
            presented.append((String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces), false))
        }
        if let cookies = headers["cookie"] {
            for part in cookies.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix(Self.cookieName + "=") { presented.append((String(pair.dropFirst(Self.cookieName.count + 1)), true)) }
            }
        }
        let opening = [token, scope == .app ? appToken : inspectToken].compactMap { $0 }
        let other = [scope == .app ? inspectToken : appToken].compactMap { $0 }
        var opened: String?
        var otherScope = false
        for (value, isCookie) in presented {
            for candidate in opening where Self.equal(value, isCookie ? Self.cookieSafe(candidate) : candidate) {
                opened = opened ?? candidate
            }
            for candidate in other where Self.equal(value, isCookie ? Self.cookieSafe(candidate) : candidate) {
                otherScope = true
            }
        }
        if let opened { return .opens(matched: opened) }
        return otherScope ? .otherScope : .none
    }

    /// Whether `origin` (`http://host:port`) names the address the request reached (`Host`).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        let lower = origin.lowercased()
        let authority: Substring
        if lower.hasPrefix("http://") {
            authority = lower.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            authority = lower.dropFirst(8)
        } else {
            return false
        }
        let originHost = authority.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return !originHost.isEmpty && String(originHost) == host.lowercased()
    }

    /// Compares in time that depends on neither where the strings differ nor the token's length:
    /// both go through a keyed 64-bit digest (SipHash, seeded at random per process, so no one
    /// outside can aim at it), and the digests are compared bit by bit. Only equal digests go on
    /// to the exact comparison.
    static func equal(_ a: String, _ b: String) -> Bool {
        let difference = digest(a) ^ digest(b)
        guard difference == 0 else { return false }
        return Array(a.utf8) == Array(b.utf8)
    }

    private static func digest(_ text: String) -> UInt64 {
        var hasher = Hasher()
        Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The token as a cookie value: characters a cookie cannot hold are percent-encoded.
    static func cookieSafe(_ token: String) -> String {
        var out = ""
        for byte in token.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte > 0x20 && byte < 0x7f && !"\";,\\%".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
