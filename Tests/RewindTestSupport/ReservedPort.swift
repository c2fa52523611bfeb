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
/// no `SO_REUSEADDR`) keeps every other socket off the port.
///
/// The port is below the ephemeral range (Linux starts it at 32768, Apple platforms at 49152),
/// so neither a `--port 0` server nor the kernel's choice of a local port for a connect ever
/// lands on it, even after ``release()``: a test that lets the port go to start its own server
/// there is not raced by the many connections of the tests around it (a full run once saw
/// `Address already in use` when the port was an ephemeral one), and a client cannot connect to
/// itself.
public final class ReservedPort: @unchecked Sendable {
    public let port: Int
    private var fd: Int32

    /// Where the port is picked: registered ports under every platform's ephemeral range.
    public static let range = 20_000..<32_768

    public init() throws {
        // A random start, then the next ones: another test, or another checkout's tests on the
        // same machine, may hold some of them.
        let start = Int.random(in: Self.range)
        var lastError: Int32 = 0
        for offset in 0..<512 {
            let candidate = Self.range.lowerBound + (start - Self.range.lowerBound + offset) % Self.range.count
            switch Self.bind(port: candidate) {
            case .success(let fd):
                self.fd = fd
                self.port = candidate
                return
            case .failure(let failure):
                lastError = failure.code
            }
            // Taken (or kept by the system): the next one; any other failure stays.
            guard lastError == EADDRINUSE || lastError == EACCES else { break }
        }
        throw ReservedPortError(reason: "no free port on 127.0.0.1 in \(Self.range.lowerBound)…\(Self.range.upperBound - 1): errno \(lastError)")
    }

    /// A socket bound to 127.0.0.1:`port`, not listening; the errno when it cannot be.
    private static func bind(port: Int) -> Result<Int32, BindFailure> {
        // Close-on-exec: a child spawned meanwhile (by any test of the process) must not keep the
        // port bound after ``release()``, or the server started there next finds it in use. On
        // Linux it is set as the socket is made: set after, a child spawned in between kept it
        // (a full run once saw `Address already in use` for a released port).
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .failure(BindFailure(code: errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #else
                Darwin.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #endif
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            return .failure(BindFailure(code: code))
        }
        return .success(fd)
    }

    private struct BindFailure: Error {
        var code: Int32
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
