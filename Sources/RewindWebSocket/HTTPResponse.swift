/// The answer the server's HTTP handler gives to an ``HTTPRequest``.
///
/// The wrapper writes the status line, `content-type`, `content-length` and `headers`, then the
/// body across as many writable callbacks as it takes, so bodies of many megabytes are fine. A
/// body too large to hold, or made while it is sent, is a ``streamed(status:contentType:headers:window:stallTimeout:body:)``
/// response.
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
    /// Set only by ``deferred(_:)``: the work that makes the real response.
    var producer: HTTPResponseProducer?
    /// Set only by ``streamed(status:contentType:headers:window:stallTimeout:body:)``: the work
    /// that writes the body.
    var streamer: HTTPResponseStreamer?

    /// A response with the given parts.
    public init(status: Int = 200, contentType: String = "application/octet-stream", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.producer = nil
        self.streamer = nil
    }

    private init(producer: HTTPResponseProducer) {
        self.init()
        self.producer = producer
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// `404 Not Found` with a short plain-text body.
    public static var notFound: HTTPResponse { .text("not found\n", status: 404) }

    /// A response that is made later, off the service thread, so slow work (an export of a long
    /// session) does not hold up every other connection of the server.
    ///
    /// The server runs `produce` on a thread of its own, then sends what it returns, the body in
    /// chunks as usual. `headers` added to the deferred response itself are added to the produced
    /// one (e.g. a `Set-Cookie` put on by a wrapper); its `status`, `contentType` and `body` are
    /// ignored, and so is a deferral inside the produced response. For `HEAD`, `produce` runs
    /// too, so that `content-length` is the real one, and the body is dropped: check
    /// ``HTTPRequest/method`` inside `produce` to skip costly work. When the client disconnects
    /// or the server shuts down first, `produce` still runs to its end and its result goes nowhere.
    /// If `produce` takes more than 120 s, the connection is closed and the result dropped.
    ///
    /// ```swift
    /// func respond(to request: HTTPRequest) -> HTTPResponse {
    ///     .deferred { HTTPResponse(contentType: "application/json", body: buildReport()) }
    /// }
    /// ```
    public static func deferred(_ produce: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        HTTPResponse(producer: HTTPResponseProducer(produce))
    }

    /// A response whose body is written while it is sent, by `body` on a thread of its own, so
    /// that a body of any size is never held whole (an export of a long session).
    ///
    /// The server writes the status line and headers at once (no `content-length`), then starts
    /// `body` with an ``HTTPBodyWriter``. What `body` writes waits in a buffer of at most
    /// `window` bytes and goes out as the client reads: ``HTTPBodyWriter/write(_:)`` blocks while
    /// the buffer is full. An HTTP/1.1 request gets `transfer-encoding: chunked` (the connection
    /// stays open for the next request); an HTTP/1.0 one gets `connection: close`, and the end of
    /// the body is the end of the connection.
    ///
    /// - When `body` returns, the body ends (the last chunk is sent).
    /// - When `body` throws, the response is cut off: the connection is closed without the last
    ///   chunk, so an HTTP/1.1 client sees an incomplete body rather than a short one.
    /// - When the client hangs up, the server shuts down, or no byte could be sent for
    ///   `stallTimeout` while some waited, the connection is closed and `body`'s next write
    ///   throws ``HTTPBodyWriter/Closed``.
    /// - For `HEAD`, only the headers are sent and `body` never runs.
    ///
    /// It may be returned from ``deferred(_:)``'s closure, to decide the status (a 404, say)
    /// before the headers go out.
    ///
    /// ```swift
    /// .streamed(contentType: "application/x-ndjson") { writer in
    ///     for line in lines { try writer.write(line) }
    /// }
    /// ```
    public static func streamed(status: Int = 200, contentType: String, headers: HTTPHeaders = [:],
                                window: Int = HTTPBodyWriter.defaultWindow, stallTimeout: Duration = .seconds(30),
                                body: @escaping @Sendable (HTTPBodyWriter) throws -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: contentType, headers: headers)
        response.streamer = HTTPResponseStreamer(window: window, stallTimeout: stallTimeout, body: body)
        return response
    }
}

/// The closure of a ``HTTPResponse/deferred(_:)`` response; equal only to itself, so that
/// ``HTTPResponse`` stays `Hashable`.
final class HTTPResponseProducer: Sendable, Hashable {
    let produce: @Sendable () -> HTTPResponse

    init(_ produce: @escaping @Sendable () -> HTTPResponse) {
        self.produce = produce
    }

    static func == (left: HTTPResponseProducer, right: HTTPResponseProducer) -> Bool { left === right }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// The body of a ``HTTPResponse/streamed(status:contentType:headers:window:stallTimeout:body:)``
/// response; equal only to itself, so that ``HTTPResponse`` stays `Hashable`.
final class HTTPResponseStreamer: Sendable, Hashable {
    let window: Int
    let stallTimeout: Duration
    let body: @Sendable (HTTPBodyWriter) throws -> Void

    init(window: Int, stallTimeout: Duration, body: @escaping @Sendable (HTTPBodyWriter) throws -> Void) {
        self.window = window
        self.stallTimeout = stallTimeout
        self.body = body
    }

    static func == (left: HTTPResponseStreamer, right: HTTPResponseStreamer) -> Bool { left === right }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
