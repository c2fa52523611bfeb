#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that nothing listens on, held for as long as this value is: a socket
/// is bound to it without listening, so a connect there is refused at once.
///
/// Binding a port and closing it again is not enough for a test of "nothing listens": tests run
/// in parallel, and another one's server (`--port 0`) may be given the same port a moment later,
/// after which the "unreachable" server answers. That happened once in CI. Holding the bind (with
/// no `SO_REUSEADDR`) keeps every other socket off the port, including the kernel's choice of a
/// local port for a connect, so a client cannot connect to itself either.
public final class ReservedPort: @unchecked Sendable {
    public let port: Int
    private var fd: Int32

    public init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ReservedPortError(reason: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw ReservedPortError(reason: "binding 127.0.0.1:0 failed: errno \(code)")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go, for a test that starts its own server there next.
    public func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}

public struct ReservedPortError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
