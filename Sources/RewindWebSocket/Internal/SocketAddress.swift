import CLibWebSockets
import Foundation

/// Socket address helpers on plain POSIX calls.
enum SocketAddress {
    /// `host:port` of the peer of `wsi` (`[::1]:port` for IPv6), or `unknown`.
    static func peer(of wsi: OpaquePointer) -> String {
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0 else { return "unknown" }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard status == 0 else { return "unknown" }
        return describe(storage)
    }

    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                    return "\(string(from: text)):\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                    return "[\(string(from: text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
        default:
            return "unknown"
        }
    }

    private static func string(from buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Why `host:port` cannot be listened on, found by trying to bind it the way lws does
    /// (with SO_REUSEADDR). Used only after lws has failed, to turn its silence into a sentence.
    static func bindFailureReason(host: String, port: Int) -> String {
        var address6 = in6_addr()
        var address4 = in_addr()
        let isIPv6 = inet_pton(AF_INET6, host, &address6) == 1
        guard isIPv6 || inet_pton(AF_INET, host, &address4) == 1 else {
            return "'\(host)' is not a numeric address or usable interface"
        }
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, SocketType.stream, 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let status: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(clamping: port).bigEndian
            address.sin6_addr = address6
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(clamping: port).bigEndian
            address.sin_addr = address4
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if status != 0 { return String(cString: strerror(errno)) }
        if listen(fd, 1) != 0 { return String(cString: strerror(errno)) }
        return "libwebsockets could not listen there (set REWIND_LWS_LOG=7 to see why)"
    }

    /// Whether `host:port` can be bound and listened on now (tried as lws does, then let go).
    static func canBind(host: String, port: Int) -> Bool {
        bindFailureReason(host: host, port: port).hasPrefix("libwebsockets could not listen")
    }
}
