import Foundation
import RewindTestSupport

/// A plain HTTP GET on 127.0.0.1 with a raw request target (nothing normalised on our side).
struct HTTPResult {
    var status: Int
    var head: String
    var body: String

    static func get(_ target: String, port: Int, headers: [String] = [], host: String? = nil, method: String = "GET") throws -> HTTPResult {
        let socket = try RawSocket(port: port)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        try socket.write(Array((request + "\r\n").utf8))
        return parse(socket.read(timeout: 60) { _ in false })
    }

    /// The response in `raw`: its head, and its body, decoded when it came chunked.
    static func parse(_ raw: [UInt8]) -> HTTPResult {
        let separator = Array("\r\n\r\n".utf8)
        let end = raw.indices.first { raw[$0...].starts(with: separator) } ?? raw.count
        let head = String(decoding: raw[..<end], as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        var result = HTTPResult(status: parts.count >= 2 ? Int(parts[1]) ?? 0 : 0, head: head, body: "")
        let body = Array(raw[min(raw.count, end + 4)...])
        if result.header("transfer-encoding") == "chunked" {
            let (payload, complete) = ChunkedBody.decode(body)
            result.bodyBytes = payload
            result.complete = complete
        } else {
            result.bodyBytes = body
        }
        result.body = String(decoding: result.bodyBytes, as: UTF8.self)
        return result
    }

    /// The body's bytes (decoded when chunked).
    var bodyBytes: [UInt8] = []
    /// Whether a chunked body ended with its last chunk (other bodies: always).
    var complete = true


    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
