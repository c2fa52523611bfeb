import Foundation
import RewindWebSocket
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One plain HTTP/1.1 GET over a TCP socket, for `rewind test --server` (the server's
/// `/export/SESSION`), with no dependency on the system's curl, which Foundation's URLSession
/// needs on Linux. Over TLS (`wss://`/`https://` servers) ``fetchSecure`` goes through
/// libwebsockets' client instead.
enum HTTPGet {
    struct Response {
        var status: Int
        var body: [UInt8]
        /// The headers, by lowercased name (the last one of a name repeated).
        var headers: [String: String] = [:]
    }

    /// Fetches `path` from `host:port`, with `Authorization: Bearer token` when given.
    static func fetch(host: String, port: Int, path: String, token: String?, timeout: Double = 60) throws -> Response {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketType.stream
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare, String(port), &hints, &list) == 0, let first = list else {
            throw CLIError("cannot find the host \(host)", code: 2)
        }
        defer { freeaddrinfo(list) }
        var descriptor: Int32 = -1
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        var lastError = ""
        while let entry = cursor {
            let candidate = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            if candidate >= 0 {
                var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
                setsockopt(candidate, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(candidate, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                if connect(candidate, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 {
                    descriptor = candidate
                    break
                }
                lastError = String(cString: strerror(errno))
                close(candidate)
            }
            cursor = entry.pointee.ai_next
        }
        guard descriptor >= 0 else {
            throw CLIError("cannot reach rewind serve at \(host):\(port): \(lastError.lowercased())", code: 2)
        }
        defer { close(descriptor) }
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\nAccept: */*\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw CLIError("the connection to \(host):\(port) broke while sending the request", code: 2) }
            sent += n
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else { throw CLIError("no answer from \(host):\(port) within \(Int(timeout)) s", code: 2) }
            received += chunk[0..<n]
        }
        return try parse(received, from: "\(host):\(port)")
    }

    /// Fetches `path` from `https://host:port`, trusting `caFile` besides the system's CAs.
    static func fetchSecure(host: String, port: Int, path: String, token: String?, caFile: String?, timeout: UInt32 = 60) throws -> Response {
        var headers: HTTPHeaders = [:]
        if let token { headers.add("Authorization", "Bearer \(token)") }
        do {
            let answer = try HTTPFetch.get("https://\(host):\(port)\(path)", headers: headers, caFile: caFile, timeoutSeconds: timeout)
            var named: [String: String] = [:]
            for field in answer.headers { named[field.name.lowercased()] = field.value }
            return Response(status: answer.status, body: answer.body, headers: named)
        } catch {
            throw CLIError("cannot fetch from rewind serve at \(host):\(port): \(error.description)", code: 2)
        }
    }

    /// Splits a whole response into its status and body (decoding a chunked body).
    static func parse(_ bytes: [UInt8], from origin: String) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw CLIError("\(origin) did not answer with HTTP", code: 2)
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw CLIError("\(origin) did not answer with HTTP", code: 2)
        }
        var body = Array(bytes[(end + 4)...])
        let chunked = lines.dropFirst().contains { line in
            let lower = line.lowercased()
            return lower.hasPrefix("transfer-encoding:") && lower.contains("chunked")
        }
        if chunked { body = try dechunk(body, from: origin) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, body: body, headers: headers)
    }

    private static func dechunk(_ bytes: [UInt8], from origin: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first ?? ""
            guard let size = Int(sizeText, radix: 16) else { throw CLIError("\(origin) sent a broken chunked body", code: 2) }
            if size == 0 { break }
            let start = lineEnd + 1
            guard start + size <= bytes.count else { throw CLIError("\(origin) sent a truncated body", code: 2) }
            out += bytes[start..<start + size]
            index = start + size + 2
        }
        return out
    }
}
