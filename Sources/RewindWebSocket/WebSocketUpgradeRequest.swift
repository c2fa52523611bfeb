/// A WebSocket upgrade request, as ``WebSocketServerDelegate/shouldAccept(_:)`` sees it.
///
/// By the time the delegate is asked, the path is known to be one of the configured endpoints and
/// the client offered that endpoint's subprotocol.
public struct WebSocketUpgradeRequest: Sendable, Hashable {
    /// The decoded path, e.g. `/inspect`.
    public var path: String
    /// The subprotocol this connection will speak: the one configured for `path`.
    public var subprotocol: String
    /// The query arguments in order, each decoded by libwebsockets: `["a=1", "b=x&y"]`.
    public var queryArguments: [String]
    /// The request headers libwebsockets knows by name, plus the configured custom ones; names in
    /// lower case (`origin`, `host`, `authorization`, `cookie`, `user-agent`, …).
    public var headers: HTTPHeaders
    /// The peer's address and port, e.g. `127.0.0.1:51234`.
    public var remoteAddress: String

    /// A request with the given parts.
    public init(path: String, subprotocol: String, queryArguments: [String] = [], headers: HTTPHeaders = [:], remoteAddress: String = "") {
        self.path = path
        self.subprotocol = subprotocol
        self.queryArguments = queryArguments
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    /// The `Origin` header (browsers always send it; other clients may not).
    public var origin: String? { headers["origin"] }

    /// The `Host` header.
    public var host: String? { headers["host"] }

    /// The decoded arguments joined with `&`, for display (`a=1&b=2`); empty when there are none.
    public var query: String { queryArguments.joined(separator: "&") }

    /// The decoded value of the query argument `name`, or `nil`.
    public func queryValue(_ name: String) -> String? {
        QueryString.value(of: name, in: queryArguments)
    }
}
