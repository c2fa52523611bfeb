import Foundation
import RewindTestSupport

/// Runs the built `rewind` executable as a child process, the way a user would.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The bytes the command wrote, exactly (`stdout` and `stderr` are decoded from them).
        var stdoutBytes: [UInt8] = []
        var stderrBytes: [UInt8] = []
    }

    /// The `rewind` binary beside the test bundle.
    static let executable = BuiltExecutable.rewind

    /// A binary built beside the test bundle.
    static func locate(_ name: String) -> URL {
        BuiltExecutable.url(name)
    }

    /// Runs `rewind arguments…` (or another built `program`) with `stdin` as its standard input
    /// and waits for it to exit.
    static func run(_ arguments: [String], program: URL = executable, stdin: Data? = nil,
                    environment: [String: String] = [:]) throws -> Output {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child = try Subprocess(program.path, arguments, environment: env, input: .pipe, output: .pipe, error: .pipe)
        // Read both pipes concurrently so a chatty child never blocks on a full pipe, each on a
        // thread of its own: a blocking read on a thread of the shared pool would hold it for as
        // long as the child runs.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        let out = child.standardOutput!
        let err = child.standardError!
        startThread(named: "test-reader") {
            outData = out.readDataToEndOfFile()
            done.signal()
        }
        startThread(named: "test-reader") {
            errData = err.readDataToEndOfFile()
            done.signal()
        }
        let input = child.standardInput!
        // Written with write(2), not FileHandle.write, which stops the process on EPIPE: a child
        // may exit without reading its input (an error about its arguments, say).
        if let stdin {
            stdin.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(input.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
        try input.close()
        done.wait()
        done.wait()
        return Output(
            status: child.waitUntilExit(),
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutBytes: Array(outData),
            stderrBytes: Array(errData)
        )
    }
}

