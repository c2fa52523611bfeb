import Foundation
import RewindSupport
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

    /// How long a run may take before it is killed and reported.
    static let deadlineSeconds = 300

    /// The `rewind` binary beside the test bundle.
    static let executable = BuiltExecutable.rewind

    /// A binary built beside the test bundle.
    static func locate(_ name: String) -> URL {
        BuiltExecutable.url(name)
    }

    /// Runs `rewind arguments…` (or another built `program`) with `stdin` as its standard input
    /// and waits for it to exit.
    static func run(_ arguments: [String], program: URL = executable, stdin: Data? = nil,
                    environment: [String: String] = [:], deadlineSeconds: Int = Self.deadlineSeconds) throws -> Output {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child = try Subprocess(program.path, arguments, environment: env, input: .pipe, output: .pipe, error: .pipe)
        // Read both pipes concurrently so a chatty child never blocks on a full pipe, each on a
        // thread of its own: a blocking read on a thread of the shared pool would hold it for as
        // long as the child runs.
        let done = DispatchSemaphore(value: 0)
        // Read piece by piece, so that what came before a deadline can be said (a crash report
        // a backtracer was writing when it hung, holding the pipe).
        let outRead = Mutex(Data())
        let errRead = Mutex(Data())
        for (handle, data) in [(child.standardOutput!, outRead), (child.standardError!, errRead)] {
            startThread(named: "test-reader") {
                while true {
                    let piece = handle.availableData
                    if piece.isEmpty { break }
                    data.withLock { $0.append(piece) }
                }
                done.signal()
            }
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
        // A child that never ends (or whose crash backtracer hangs holding its pipes: seen once,
        // the backtracer waiting forever on the memory of a process already gone) fails the test
        // at the deadline instead of hanging the suite.
        let deadline = DispatchTime.now() + .seconds(deadlineSeconds)
        var ended = 0
        while ended < 2, done.wait(timeout: deadline) == .success { ended += 1 }
        guard ended == 2 else {
            child.signal(SIGKILL)
            let grace = DispatchTime.now() + .seconds(10)
            while ended < 2, done.wait(timeout: grace) == .success { ended += 1 }
            let readersEnded = ended == 2
            let errData = errRead.withLock { $0 }
            let said = readersEnded ? String(decoding: errData, as: UTF8.self)
                : "(its output is held by another process; what it wrote before: \(String(decoding: errData.suffix(8_192), as: UTF8.self)))"
            return Output(status: -1, stdout: String(decoding: outRead.withLock { $0 }, as: UTF8.self),
                          stderr: "CLIRunner: \(program.lastPathComponent) \(arguments.joined(separator: " ")) still ran after \(deadlineSeconds) s and was killed; stderr: \(said)")
        }
        let outData = outRead.withLock { $0 }
        let errData = errRead.withLock { $0 }
        return Output(
            status: child.waitUntilExit(),
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutBytes: Array(outData),
            stderrBytes: Array(errData)
        )
    }
}

