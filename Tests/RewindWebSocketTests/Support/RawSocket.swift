import Foundation

/// A plain TCP client on 127.0.0.1, for speaking HTTP or a hand-made WebSocket handshake and for
/// misbehaving (never reading) in ways a real client will not.
final class RawSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes a non-reading peer fill up fast.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = Self.loopback(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect: \(message)")
        }
    }

    deinit {
        close(fd)
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads until `terminator` has arrived, the peer closes, or `timeout` passes.
    func read(until terminator: [UInt8], timeout: Duration = .seconds(10)) -> [UInt8] {
        read(timeout: timeout, byteAtATime: true) { received in
            received.count >= terminator.count && received.suffix(terminator.count).elementsEqual(terminator)
        }
    }

    /// Reads in large pieces until what arrived ends with `suffix`, the peer closes, or `timeout`
    /// passes: for a response after which the peer sends nothing until asked again.
    func read(untilSuffix suffix: [UInt8], timeout: Duration = .seconds(10)) -> [UInt8] {
        read(timeout: timeout, byteAtATime: false) { received in
            received.count >= suffix.count && received.suffix(suffix.count).elementsEqual(suffix)
        }
    }

    /// Reads until the peer closes or `timeout` passes.
    func readToEnd(timeout: Duration = .seconds(20)) -> [UInt8] {
        read(timeout: timeout, byteAtATime: false) { _ in false }
    }

    /// Reads until `done` says so, the peer closes (or resets), or `timeout` passes. Byte at a
    /// time, nothing past a terminator is consumed.
    private func read(timeout: Duration, byteAtATime: Bool, done: ([UInt8]) -> Bool) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !done(received) {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            let want = byteAtATime ? 1 : chunk.count
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, want, 0) }
            guard n > 0 else { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return received
    }

    /// Sends a WebSocket upgrade request and returns the response head (status line and headers).
    func handshake(path: String, port: Int, subprotocol: String?, origin: String? = nil) throws -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        if let origin { request += "Origin: \(origin)\r\n" }
        try write(request + "\r\n")
        return String(decoding: read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
    }
}

/// The status code of an HTTP response head (`HTTP/1.x 403 Forbidden` gives 403), or 0.
func statusCode(of head: String) -> Int {
    let parts = head.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return 0 }
    return Int(parts[1]) ?? 0
}
