import Foundation
import RewindJSON
import RewindWire
import RewindSupport
import RewindTestSupport

/// A `rewind` command running as a child process (`tail`, …), its stdout and stderr collected
/// separately as they come, so tests can wait on what it printed.
final class RunningCLI: @unchecked Sendable {
    private struct Seen: Sendable {
        var out = ""
        var err = ""
        /// What it wrote, byte for byte.
        var outBytes: [UInt8] = []
        var errBytes: [UInt8] = []
        /// Lines (newlines) on stdout so far, counted as they come: cheaper than splitting `out`.
        var lines = 0
        var exited = false
        /// Pipes (stdout, stderr) whose end has been read.
        var pipesEnded = 0
    }

    private var process: Subprocess!
    private let seen = Condition(Seen())

    init(_ arguments: [String], environment: [String: String] = [:], program: URL = CLIRunner.executable) throws {
        var env = ProcessInfo.processInfo.environment
        env["REWIND_TOKEN"] = nil
        for (key, value) in environment { env[key] = value }
        let seen = self.seen
        process = try Subprocess(program.path, arguments, environment: env, output: .pipe, error: .pipe) { _ in
            seen.update { $0.exited = true }
        }
        for (handle, isError) in [(process.standardOutput!, false), (process.standardError!, true)] {
            PipeReader.start(handle, onEnd: {
                seen.update { $0.pipesEnded += 1 }
            }) { data in
                guard !data.isEmpty else { return }
                seen.update { seen in
                    if isError {
                        seen.err += String(decoding: data, as: UTF8.self)
                        seen.errBytes += data
                    } else {
                        seen.out += String(decoding: data, as: UTF8.self)
                        seen.outBytes += data
                        seen.lines += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                    }
                }
            }
        }
    }

    var stdout: String { seen.value.out }
    var stderr: String { seen.value.err }
    /// Standard output and error so far, byte for byte (a chunk may end inside a character, which
    /// `stdout` and `stderr` would decode as U+FFFD).
    var stdoutBytes: [UInt8] { seen.value.outBytes }
    var stderrBytes: [UInt8] { seen.value.errBytes }

    /// Waits until `check(stdout, stderr)` holds or `timeout` seconds pass; returns whether it held.
    func wait(timeout: Double = 30, until check: (String, String) -> Bool) -> Bool {
        seen.wait(timeout: timeout) { check($0.out, $0.err) }
    }

    /// Waits until standard output holds at least `count` whole lines.
    func waitForLines(_ count: Int, timeout: Double = 30) -> Bool {
        seen.wait(timeout: timeout) { $0.lines >= count }
    }

    var lineCount: Int { seen.value.lines }

    /// Waits until standard error contains `needle`.
    func waitForError(_ needle: String, timeout: Double = 30) -> Bool {
        wait(timeout: timeout) { _, err in err.contains(needle) }
    }

    func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits for the process to exit and for its pipes to drain; `nil` if it has not exited
    /// within `timeout` seconds.
    func waitForExit(timeout: Double = 30) -> Int32? {
        _ = seen.wait(timeout: timeout) { $0.exited && $0.pipesEnded >= 2 }
        guard seen.value.exited else { return nil }
        return process.waitUntilExit()
    }

    /// Kills the process if it is still running (for `defer`).
    func stop() {
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A recording with two action types, for the tail tests: odd seqs bump `count`
/// (`counter/increment`), even seqs set `note` (`note/set`).
enum TwoTypeRecording {
    static func state(_ seq: Int64) -> JSONValue {
        let count = (seq + 1) / 2
        let note = seq < 2 ? "start" : "note \(seq / 2 * 2)"
        return ["count": .number(JSONNumber(count)), "note": .string(note)]
    }

    static func action(_ seq: Int64) -> JSONValue {
        if seq == 0 { return ["type": "@@INIT"] }
        return seq % 2 == 1 ? ["type": "counter/increment", "by": 1] : ["type": "note/set", "text": .string("note \(seq)")]
    }

    /// Where the app sent the action of `seq`: every fourth action from seq 1 has a send site.
    static func site(_ seq: Int64) -> WireEvent.Site? {
        seq % 4 == 1 ? WireEvent.Site(file: "CLITest/Counter.swift", line: Int(seq), function: "tap()") : nil
    }

    /// The event message for `seq`: a keyframe at 0, a one-operation patch after.
    static func event(_ seq: Int64) -> JSONValue {
        let after = state(seq)
        let at = 1_763_700_000 + Double(seq) / 4
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: at, action: action(0), keyframe: after, hash: after.stableHash)).json
        }
        let operation: JSONValue = seq % 2 == 1
            ? ["op": "replace", "path": "/count", "value": after["count"]!]
            : ["op": "replace", "path": "/note", "value": after["note"]!]
        return AppMessage.event(WireEvent(seq: seq, at: at, action: action(seq), patch: [operation], hash: after.stableHash,
                                          durationNs: 1_000 + seq, site: site(seq))).json
    }
}

/// The seqs at the start of each event line `rewind tail` printed (lines that start with a digit).
func printedSeqs(_ text: String) -> [Int64] {
    text.split(separator: "\n").compactMap { line in
        line.first?.isNumber == true ? Int64(line.prefix { $0.isNumber }) : nil
    }
}
