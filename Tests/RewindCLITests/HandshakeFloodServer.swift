import Foundation
import RewindSupport
import RewindTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket server written by hand on a TCP socket, for clients a real server cannot test: it
/// answers every upgrade with `101` and, in the same write, one unmasked text frame of `payload`,
/// so the client reads the message with its handshake (as a server that sends at once does,
/// over a fast link). It reads the close code each client answers with.
final class HandshakeFloodServer: @unchecked Sendable {
    let port: Int
    /// The close code of each connection's first close frame, in order (nil: none came).
    let closes = Condition<[UInt16?]>([])
    private let listener: Int32
    private let payload: [UInt8]
    private let stopped = Mutex(false)

    init(payload: String) throws {
        self.payload = Array(payload.utf8)
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = RawSocket.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else {
            close(fd)
            throw FixtureFailure(message: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Waits until a client closed with `code`.
    func waitForClose(_ code: UInt16, timeout: Double = 30) -> Bool {
        closes.wait(for: { $0.contains(code) }, deadline: MonotonicClock.deadline(after: timeout))
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let connection = Thread { [self] in serve(fd) }
            connection.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !(request.count >= 4 && Array(request.suffix(4)) == Array("\r\n\r\n".utf8)) {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { return }
            request += buffer[..<n]
        }
        let text = String(decoding: request, as: UTF8.self)
        func header(_ name: String) -> String? {
            text.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        guard let key = header("sec-websocket-key") else { return }
        let accept = Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        var answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n"
        if let protocols = header("sec-websocket-protocol"), let first = protocols.split(separator: ",").first {
            answer += "Sec-WebSocket-Protocol: \(first.trimmingCharacters(in: .whitespaces))\r\n"
        }
        answer += "\r\n"
        var out = Array(answer.utf8)
        out += [0x81, 127]
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift))) }
        out += payload
        var sent = 0
        while sent < out.count {
            let n = out[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            sent += n
        }
        // The client's answer: the first frame that is a close, its code unmasked.
        var received: [UInt8] = []
        var code: UInt16?
        while code == nil {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            received += buffer[..<n]
            code = Self.closeCode(in: received)
        }
        closes.update(waking: .all) { $0.append(code) }
    }

    /// The code of the first close frame in `bytes` (client frames are masked), when it is there.
    static func closeCode(in bytes: [UInt8]) -> UInt16? {
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            let masked = bytes[index + 1] & 0x80 != 0
            var length = Int(bytes[index + 1] & 0x7F)
            var at = index + 2
            if length == 126 {
                guard at + 2 <= bytes.count else { return nil }
                length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                at += 2
            } else if length == 127 {
                guard at + 8 <= bytes.count else { return nil }
                length = bytes[at..<at + 8].reduce(0) { $0 << 8 | Int($1) }
                at += 8
            }
            let mask = masked ? Array(bytes[at..<min(at + 4, bytes.count)]) : [0, 0, 0, 0]
            if masked { at += 4 }
            guard at + length <= bytes.count else { return nil }
            if opcode == 0x8 {
                guard length >= 2 else { return 1005 }
                let high = bytes[at] ^ mask[0], low = bytes[at + 1] ^ mask[1]
                return UInt16(high) << 8 | UInt16(low)
            }
            index = at + length
        }
        return nil
    }
}

/// SHA-1 (RFC 3174), for the handshake's Sec-WebSocket-Accept only.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for i in 0..<16 {
                w[i] = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + i * 4 + $1]) }
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch i {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temp)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32(24 - $0 * 8)) } }
    }
}
