import RewindWebSocket

/// Who may connect: a WebSocket whose `Origin` is a page other than the server's own is refused
/// (a web page must not read an app's state through localhost), and with a token every upgrade
/// and page request must carry it: `?token=`, `Authorization: Bearer`, or the `rewind_token`
/// cookie the server sets on a page opened with `?token=`.
///
/// Without a token the server listens on loopback only, and then every request must name a
/// loopback host (`Host: 127.0.0.1:7433`, `localhost`, `[::1]`): a web page that rebinds its own
/// domain name to 127.0.0.1 would otherwise be same-origin with the server and read the log.
struct AccessPolicy: Sendable {
    static let cookieName = "rewind_token"
    let token: String?

    enum PageDecision: Equatable {
        case allowed(setCookie: String?)
        case refused
        case foreignHost
    }

    func allowsUpgrade(_ request: WebSocketUpgradeRequest) -> Bool {
        if !hasToken, !Self.isLoopbackHost(request.host) { return false }
        if let origin = request.origin, !Self.isSameOrigin(origin, host: request.host) { return false }
        return carriesToken(query: request.queryValue("token"), headers: request.headers)
    }

    func checkPage(_ request: HTTPRequest) -> PageDecision {
        guard let token, !token.isEmpty else {
            return Self.isLoopbackHost(request.headers["host"]) ? .allowed(setCookie: nil) : .foreignHost
        }
        let query = request.queryValue("token")
        guard carriesToken(query: query, headers: request.headers) else { return .refused }
        if let query, Self.equal(query, token) {
            // The page's own WebSockets then carry the token without it showing in scripts.
            return .allowed(setCookie: "\(Self.cookieName)=\(Self.cookieSafe(token)); Path=/; HttpOnly; SameSite=Strict")
        }
        return .allowed(setCookie: nil)
    }

    private var hasToken: Bool { !(token ?? "").isEmpty }

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

    private func carriesToken(query: String?, headers: HTTPHeaders) -> Bool {
        guard let token, !token.isEmpty else { return true }
        if let query, Self.equal(query, token) { return true }
        if let authorization = headers["authorization"], authorization.lowercased().hasPrefix("bearer "),
           Self.equal(String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces), token) {
            return true
        }
        if let cookies = headers["cookie"] {
            for part in cookies.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix(Self.cookieName + "="), Self.equal(String(pair.dropFirst(Self.cookieName.count + 1)), Self.cookieSafe(token)) {
                    return true
                }
            }
        }
        return false
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

    /// Compares in time that does not depend on where the strings differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
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
