import Foundation
import RewindTestSupport

/// A plain TCP client on 127.0.0.1: hand-made HTTP and WebSocket handshakes, and an inspector that
/// stops reading.
final class RawSocket {
    let fd: Int32

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError(description: "socket failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw FixtureError(description: "connect failed")
        }
    }

    deinit {
        close(fd)
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw FixtureError(description: "send failed") }
            sent += n
        }
    }

    /// Reads until `done` holds for what arrived, the peer closes, or `timeout` seconds pass.
    func read(timeout: Double = 10, until done: ([UInt8]) -> Bool) -> [UInt8] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !done(received) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, remaining * 1000))) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return received
    }

    /// The status and head of a WebSocket upgrade.
    func upgrade(path: String, port: Int, subprotocol: String, headers: [String] = [],
                 host: String? = nil) throws -> (status: Int, head: String) {
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: \(subprotocol)\r\n"
        for header in headers { request += header + "\r\n" }
        try write(Array((request + "\r\n").utf8))
        let end = Array("\r\n\r\n".utf8)
        var head: [UInt8] = []
        var byte = [UInt8](repeating: 0, count: 1)
        let deadline = Date(timeIntervalSinceNow: 10)
        while !(head.count >= 4 && Array(head.suffix(4)) == end), Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            head.append(byte[0])
        }
        let text = String(decoding: head, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2)
        return (parts.count >= 2 ? Int(parts[1]) ?? 0 : 0, text)
    }

    /// Sends one masked text frame, as a client must.
    func sendText(_ text: String) throws {
        try sendFrame(opcode: 0x1, Array(text.utf8))
    }

    /// Sends one final, masked frame with `opcode` (1 text, 2 binary) and any payload bytes.
    func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xff))
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        for (i, byte) in payload.enumerated() { frame.append(byte ^ mask[i % 4]) }
        try write(frame)
    }

    /// The close code of the first close frame the server sends within `timeout`, if any
    /// (other frames before it are skipped).
    func closeCode(timeout: Double = 10) -> UInt16? {
        ending(timeout: timeout).closeCode
    }

    /// Reads until a close frame arrives, the server drops the connection, or `timeout` passes.
    func ending(timeout: Double) -> (closeCode: UInt16?, dropped: Bool) {
        var code: UInt16?
        var seen = 0
        let bytes = read(timeout: timeout) { bytes in
            seen = bytes.count
            var i = 0
            while i + 2 <= bytes.count {
                let opcode = bytes[i] & 0x0f
                var length = Int(bytes[i + 1] & 0x7f)
                var start = i + 2
                if length == 126 {
                    guard start + 2 <= bytes.count else { return false }
                    length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                    start += 2
                } else if length == 127 {
                    guard start + 8 <= bytes.count else { return false }
                    length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }
                    start += 8
                }
                guard start + length <= bytes.count else { return false }
                if opcode == 0x8 {
                    code = length >= 2 ? UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1]) : 1005
                    return true
                }
                i = start + length
            }
            return false
        }
        // Without a close frame, `read` stopped at the end of the stream or at the deadline.
        var probe: UInt8 = 0
        let dropped = code == nil && bytes.count == seen && recv(fd, &probe, 1, Int32(MSG_DONTWAIT)) == 0
        return (code, dropped)
    }
}

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
