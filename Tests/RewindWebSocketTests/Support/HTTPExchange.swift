import RewindTestSupport

/// A parsed HTTP/1.x response read off a raw socket.
struct HTTPExchange {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    /// Sends `GET`/`HEAD` `target` with `Connection: close` and reads the whole response.
    static func request(_ target: String, method: String = "GET", port: Int, extraHeaders: String = "") throws -> HTTPExchange {
        let socket = try RawSocket(port: port)
        try socket.write("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\(extraHeaders)\r\n")
        let raw = socket.readToEnd()
        let separator = Array("\r\n\r\n".utf8)
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw RawSocket.Failure(description: "no response head in \(raw.count) bytes")
        }
        let head = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingPrefix(" ").description
        }
        var exchange = HTTPExchange(status: statusCode(of: String(head.first ?? "")), headers: headers, body: Array(raw[(end + 4)...]))
        if headers["transfer-encoding"] == "chunked" && method != "HEAD" {
            let (body, complete) = ChunkedBody.decode(exchange.body)
            exchange.body = body
            exchange.complete = complete
        }
        return exchange
    }

    /// Whether a chunked body ended with its last chunk (a body sent whole is always complete).
    var complete = true

}
