import Foundation
import RewindTestSupport
import RewindSupport

/// A helper executable built beside the tests, run as a child process whose standard output is
/// collected line by line, so a test can wait for what it reports with a deadline.
final class ChildProcess: @unchecked Sendable {
    /// The executable `name` beside the test bundle.
    static func executable(_ name: String) -> URL {
        BuiltExecutable.url(name)
    }

    let process: Subprocess
    private struct Read {
        var lines: [String] = []
        var partial = ""
        var closed = false
    }

    /// Tests wait here for lines; each read wakes them.
    private let read = Condition(Read())

    init(_ name: String, arguments: [String]) throws {
        process = try Subprocess(Self.executable(name).path, arguments, output: .pipe, error: .inherit)
        let reader = process.standardOutput!
        startThread(named: "child-reader") { [read] in
            while true {
                let data = reader.availableData
                let closed = read.update(waking: .all) { read -> Bool in
                    if data.isEmpty {
                        read.closed = true
                        return true
                    }
                    read.partial += String(decoding: data, as: UTF8.self)
                    while let newline = read.partial.firstIndex(of: "\n") {
                        read.lines.append(String(read.partial[..<newline]))
                        read.partial = String(read.partial[read.partial.index(after: newline)...])
                    }
                    return false
                }
                if closed { return }
            }
        }
    }

    /// Waits until `match` returns a value for one of the lines read so far (checked from the
    /// newest back), or `nil` once `timeout` seconds pass or the child closes its output first.
    func wait<T>(timeout: Double, for match: (String) -> T?) -> T? {
        let deadline = MonotonicClock.deadline(after: timeout)
        var checked = 0
        while true {
            let (fresh, closed) = read.withLock { ($0.lines[checked...], $0.closed) }
            for line in fresh.reversed() {
                if let found = match(line) { return found }
            }
            checked = fresh.endIndex
            if closed { return nil }
            // Woken by each read; a new line (or the end) is what is worth looking at again.
            guard read.wait(for: { $0.closed || $0.lines.count > checked }, deadline: deadline) else { return nil }
        }
    }

    /// Every line read so far.
    var output: [String] {
        read.withLock { $0.lines }
    }

    /// Sends SIGKILL and waits for the child to be gone and its output drained.
    func kill() {
        process.signal(SIGKILL)
        process.waitUntilExit()
        _ = read.wait(for: { $0.closed })
    }
}
