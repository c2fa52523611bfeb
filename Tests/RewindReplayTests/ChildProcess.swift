import Foundation
import RewindTestSupport

/// A helper executable built beside the tests, run as a child process whose standard output is
/// collected line by line, so a test can wait for what it reports with a deadline.
final class ChildProcess: @unchecked Sendable {
    /// The executable `name` beside the test bundle.
    static func executable(_ name: String) -> URL {
        BuiltExecutable.url(name)
    }

    let process: Subprocess
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = ""
    private var closed = false

    init(_ name: String, arguments: [String]) throws {
        process = try Subprocess(Self.executable(name).path, arguments, output: .pipe, error: .inherit)
        let reader = process.standardOutput!
        startThread(named: "child-reader") { [self] in
            while true {
                let data = reader.availableData
                condition.lock()
                if data.isEmpty {
                    closed = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                partial += String(decoding: data, as: UTF8.self)
                while let newline = partial.firstIndex(of: "\n") {
                    lines.append(String(partial[..<newline]))
                    partial = String(partial[partial.index(after: newline)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Waits until `match` returns a value for one of the lines read so far (checked from the
    /// newest back), or `nil` once `timeout` seconds pass or the child closes its output first.
    func wait<T>(timeout: Double, for match: (String) -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            for line in lines[checked...].reversed() {
                if let found = match(line) { return found }
            }
            checked = lines.count
            if closed || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Every line read so far.
    var output: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Sends SIGKILL and waits for the child to be gone and its output drained.
    func kill() {
        process.signal(SIGKILL)
        process.waitUntilExit()
        condition.lock()
        while !closed { condition.wait() }
        condition.unlock()
    }
}
