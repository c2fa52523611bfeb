/// A plain HTTP request (not a WebSocket upgrade), as the server's HTTP handler sees it.
///
/// libwebsockets has already URL-decoded the path and the query arguments and removed `..`
/// segments from the path, so `path` is safe to map onto a directory.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET` or `HEAD` (other methods are answered 405 before reaching the handler).
    public var method: String
    /// The decoded path, e.g. `/index.html`.
    public var path: String
    /// The query arguments in order, each decoded by libwebsockets: `["a=1", "b=x&y"]`.
    public var queryArguments: [String]
    /// The request headers libwebsockets knows by name, plus the configured custom ones; names in
    /// lower case.
    public var headers: HTTPHeaders
    /// The peer's address and port, e.g. `127.0.0.1:51234`.
    public var remoteAddress: String

    /// A request with the given parts.
    public init(method: String, path: String, queryArguments: [String] = [], headers: HTTPHeaders = [:], remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.queryArguments = queryArguments
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    /// The decoded arguments joined with `&`, for display (`a=1&b=2`); empty when there are none.
    public var query: String { queryArguments.joined(separator: "&") }

    /// The decoded value of the query argument `name` (`?token=abc` gives `abc`), or `nil`.
    public func queryValue(_ name: String) -> String? {
        QueryString.value(of: name, in: queryArguments)
    }
}
