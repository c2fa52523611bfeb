import Foundation

/// The parts of a `ws://` URL that `lws_client_connect_via_info` wants.
struct ClientURL: Hashable {
    /// The address to connect to (no brackets around IPv6).
    var address: String
    var port: Int
    /// The path with its query, as sent on the request line.
    var pathAndQuery: String
    /// The `Host` header value.
    var hostHeader: String

    init(_ text: String) throws(WebSocketError) {
        guard let components = URLComponents(string: text) else {
            throw .invalidURL(text, reason: "not a URL")
        }
        switch components.scheme?.lowercased() {
        case "ws": break
        case "wss": throw .invalidURL(text, reason: "wss (TLS) is not supported")
        default: throw .invalidURL(text, reason: "the scheme must be ws")
        }
        guard var host = components.host, !host.isEmpty else {
            throw .invalidURL(text, reason: "no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 80
        guard (1...65_535).contains(port) else { throw .invalidURL(text, reason: "port \(port) is out of range") }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        self.address = host
        self.port = port
        self.pathAndQuery = path
        let shownHost = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = port == 80 ? shownHost : "\(shownHost):\(port)"
    }

    /// The path without the query, for ``WebSocketConnection/path``.
    var path: String {
        String(pathAndQuery.prefix { $0 != "?" })
    }
}
