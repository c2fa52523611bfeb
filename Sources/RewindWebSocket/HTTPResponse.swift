/// The answer the server's HTTP handler gives to an ``HTTPRequest``.
///
/// The wrapper writes the status line, `content-type`, `content-length` and `headers`, then the
/// body across as many writable callbacks as it takes, so bodies of many megabytes are fine.
///
/// ```swift
/// HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(page.utf8))
/// ```
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, e.g. 200 or 404.
    public var status: Int
    /// The `content-type` header value.
    public var contentType: String
    /// Further headers (`cache-control`, `etag`, …); do not repeat `content-type` or `content-length`.
    public var headers: HTTPHeaders
    /// The body bytes (not sent for `HEAD`).
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int = 200, contentType: String = "application/octet-stream", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// `404 Not Found` with a short plain-text body.
    public static var notFound: HTTPResponse { .text("not found\n", status: 404) }
}
