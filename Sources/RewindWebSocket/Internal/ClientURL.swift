import Foundation

/// The parts of a `ws://` or `wss://` URL (or `http://`/`https://` for a plain request) that
/// `lws_client_connect_via_info` wants.
struct ClientURL: Hashable {
    /// Over TLS (`wss`, `https`).
    var isSecure: Bool
    /// The address to connect to (no brackets around IPv6).
    var address: String
    var port: Int
    /// The path with its query, as sent on the request line.
    var pathAndQuery: String
    /// The `Host` header value.
    var hostHeader: String

    /// `web` takes `http` and `https` instead of `ws` and `wss`.
    init(_ text: String, web: Bool = false) throws(WebSocketError) {
        guard let components = URLComponents(string: text) else {
            throw .invalidURL(text, reason: "not a URL")
        }
        let (plain, secure) = web ? ("http", "https") : ("ws", "wss")
        switch components.scheme?.lowercased() {
        case plain: isSecure = false
        case secure: isSecure = true
        default: throw .invalidURL(text, reason: "the scheme must be \(plain) or \(secure)")
        }
        guard var host = components.host, !host.isEmpty else {
            throw .invalidURL(text, reason: "no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort = isSecure ? 443 : 80
        let port = components.port ?? defaultPort
        guard (1...65_535).contains(port) else { throw .invalidURL(text, reason: "port \(port) is out of range") }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        self.address = host
        self.port = port
        self.pathAndQuery = path
        let shownHost = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = port == defaultPort ? shownHost : "\(shownHost):\(port)"
    }

    /// The path without the query, for ``WebSocketConnection/path``.
    var path: String {
        String(pathAndQuery.prefix { $0 != "?" })
    }
}
