import Foundation
import RewindTestSupport
import RewindSupport

/// Runs `rewind` with its standard output on a pseudo-terminal, so the command sees a terminal
/// (`isatty` is true), and returns the bytes it wrote there exactly: the terminal is put in raw
/// mode first, so a newline is not turned into CR LF on the way.
enum PseudoTerminal {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `ptsname` returns a static buffer: one caller at a time.
    private static let nameLock = Mutex()

    /// The C library's pseudo-terminal calls, which Swift's Glibc module does not declare
    /// (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname`), looked up by name.
    private struct Calls {
        typealias Open = @convention(c) (Int32) -> Int32
        typealias Grant = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let open: Open
        let grant: Grant
        let unlock: Grant
        let name: Name

        init() throws {
            let handle = dlopen(nil, RTLD_NOW)
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let address = dlsym(handle, name) else { throw Failure(description: "\(name) is not in the C library") }
                return unsafeBitCast(address, to: type)
            }
            open = try symbol("posix_openpt", as: Open.self)
            grant = try symbol("grantpt", as: Grant.self)
            unlock = try symbol("unlockpt", as: Grant.self)
            name = try symbol("ptsname", as: Name.self)
        }
    }

    /// Runs `rewind arguments…` with standard output on a new pseudo-terminal and standard error on
    /// a pipe, and waits for it to exit.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIRunner.Output {
        let calls = try Calls()
        let master = calls.open(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure(description: "posix_openpt: \(String(cString: strerror(errno)))") }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        guard calls.grant(master) == 0, calls.unlock(master) == 0 else {
            close(master)
            throw Failure(description: "grantpt/unlockpt: \(String(cString: strerror(errno)))")
        }
        let name: String? = nameLock.withLock { calls.name(master).map { String(cString: $0) } }
        guard let name else {
            close(master)
            throw Failure(description: "ptsname: \(String(cString: strerror(errno)))")
        }
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw Failure(description: "open \(name): \(String(cString: strerror(errno)))")
        }
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        var attributes = termios()
        tcgetattr(slave, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(slave, TCSANOW, &attributes)

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child: Subprocess
        do {
            child = try Subprocess(CLIRunner.executable.path, arguments, environment: env, input: .null,
                                   output: .descriptor(slave), error: .pipe)
        } catch {
            close(slave)
            close(master)
            throw error
        }
        // Only the child holds the terminal now: once it exits, reading the master ends (EIO).
        close(slave)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outBytes: [UInt8] = []
        nonisolated(unsafe) var errData = Data()
        startThread(named: "test-pty-reader") {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if n > 0 {
                    outBytes += buffer[0..<n]
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            done.signal()
        }
        let err = child.standardError!
        startThread(named: "test-reader") {
            errData = err.readDataToEndOfFile()
            done.signal()
        }
        let status = child.waitUntilExit()
        done.wait()
        done.wait()
        close(master)
        return CLIRunner.Output(status: status, stdout: String(decoding: outBytes, as: UTF8.self),
                                stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outBytes, stderrBytes: Array(errData))
    }
}
