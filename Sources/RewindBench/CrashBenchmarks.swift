import Foundation
import RewindJSON
import RewindLog

/// Events lost at a crash (issue 40): `RewindRecorderChild N trap MODE` (built beside this
/// executable) records N - 1 actions into a local log and traps in its reducer on action N; its
/// next run writes the crash into the session, whose `@@rewind/crashed` says how many recorded
/// actions the log lacked. Three runs a mode.
enum CrashBenchmarks {
    static var group: BenchGroup { BenchGroup(name: "crash") { try run() } }

    static func run() throws -> [BenchResult] {
        let child = ProcessServerBenchmarks.bench.deletingLastPathComponent().appendingPathComponent("RewindRecorderChild")
        guard FileManager.default.isExecutableFile(atPath: child.path) else {
            throw BenchFailure("the crash benchmarks run \(child.path), which is not built: swift build -c release")
        }
        var results: [BenchResult] = []
        for (mode, label, how) in [("paced", "UI pace", "an action every 2 ms"), ("", "full speed", "queue of 10,000"),
                                   ("small-queue", "queue full", "full speed, a queue of 16 states")] {
            var lost: [Int64] = []
            for _ in 0..<3 { lost.append(try lostAtCrash(child: child, actions: 1_000, mode: mode)) }
            results.append(BenchResult(name: "crash/events lost, \(label)", value: Double(lost.max() ?? -1), unit: "events",
                                       note: "most of 3 runs (\(lost.map(String.init).joined(separator: ", "))); \(how); 999 actions before the trap"))
        }
        return results
    }

    /// One crash and the run after it; the crashed event's `lost`.
    static func lostAtCrash(child: URL, actions: Int, mode: String) throws -> Int64 {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ProcessInfo.processInfo.environment.merging([
            // Nothing listens there: every event stays in the local log.
            "REWIND_SERVER": "ws://127.0.0.1:9/app", "REWIND_TOKEN": "", "REWIND_OUTBOX": folder.appendingPathComponent("outbox").path,
            "SWIFT_BACKTRACE": "enable=no",
        ]) { $1 }
        for arguments in [[String(actions), "trap"] + (mode.isEmpty ? [] : [mode]), ["1", "return"]] {
            let process = Process()
            process.executableURL = child
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
        let outbox = folder.appendingPathComponent("outbox")
        guard let file = try FileManager.default.contentsOfDirectory(atPath: outbox.path).first(where: { $0.hasSuffix(".db") }) else {
            throw BenchFailure("no local log in \(outbox.path)")
        }
        let reader = try LogReader(path: outbox.appendingPathComponent(file).path)
        guard let crash = try reader.sessions().compactMap(\.crash).first, let lost = crash["lost"]?.numberValue?.int64Value else {
            throw BenchFailure("the crashed session has no @@rewind/crashed in \(file)")
        }
        return lost
    }
}
