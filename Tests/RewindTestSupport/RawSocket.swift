import Foundation

/// A plain TCP client on 127.0.0.1, for speaking HTTP or a hand-made WebSocket handshake and for
/// misbehaving (never reading, stopping mid-frame) in ways a real client will not.
public final class RawSocket {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let fd: Int32

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes a non-reading peer fill up fast.
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        #if canImport(Darwin)
        // Darwin has no MSG_NOSIGNAL: a write to a closed peer is EPIPE, not SIGPIPE, by option.
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
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

    public static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    #if os(Linux)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    public func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    public func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Self.sendFlags) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads until `terminator` has arrived, the peer closes, or `timeout` passes.
    public func read(until terminator: [UInt8], timeout: Duration = .seconds(10)) -> [UInt8] {
        read(timeout: timeout, byteAtATime: true) { received in
            received.count >= terminator.count && received.suffix(terminator.count).elementsEqual(terminator)
        }
    }

    /// Reads in large pieces until what arrived ends with `suffix`, the peer closes, or `timeout`
    /// passes: for a response after which the peer sends nothing until asked again.
    public func read(untilSuffix suffix: [UInt8], timeout: Duration = .seconds(10)) -> [UInt8] {
        read(timeout: timeout, byteAtATime: false) { received in
            received.count >= suffix.count && received.suffix(suffix.count).elementsEqual(suffix)
        }
    }

    /// Reads in large pieces until `done` holds for what arrived, the peer closes, or `timeout`
    /// seconds pass.
    public func read(timeout: Double = 10, until done: ([UInt8]) -> Bool) -> [UInt8] {
        read(timeout: .seconds(timeout), byteAtATime: false, done: done)
    }

    /// Reads until the peer closes or `timeout` passes.
    public func readToEnd(timeout: Duration = .seconds(20)) -> [UInt8] {
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
            // A signal (a child process of another test ending) interrupts a read, not the peer.
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return received
    }

    /// Sends a WebSocket upgrade request (each of `headers` a `Name: value` line) and returns the
    /// response's status and head (status line and headers).
    public func upgrade(path: String, port: Int, subprotocol: String?, headers: [String] = [],
                        host: String? = nil) throws -> (status: Int, head: String) {
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        for header in headers { request += header + "\r\n" }
        try write(request + "\r\n")
        let head = String(decoding: read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        return (statusCode(of: head), head)
    }

    /// Sends a WebSocket upgrade request and returns the response head (status line and headers).
    public func handshake(path: String, port: Int, subprotocol: String?, origin: String? = nil) throws -> String {
        try upgrade(path: path, port: port, subprotocol: subprotocol, headers: origin.map { ["Origin: \($0)"] } ?? []).head
    }

    /// Sends one masked text frame, as a client must.
    public func sendText(_ text: String) throws {
        try sendFrame(opcode: 0x1, Array(text.utf8))
    }

    /// Sends one final, masked frame with `opcode` (1 text, 2 binary) and any payload bytes.
    public func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
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
    public func closeCode(timeout: Double = 10) -> UInt16? {
        ending(timeout: timeout).closeCode
    }

    /// Reads until a close frame arrives, the server drops the connection, or `timeout` passes.
    public func ending(timeout: Double) -> (closeCode: UInt16?, dropped: Bool) {
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

/// The status code of an HTTP response head (`HTTP/1.x 403 Forbidden` gives 403), or 0.
public func statusCode(of head: String) -> Int {
    let parts = head.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return 0 }
    return Int(parts[1]) ?? 0
}
