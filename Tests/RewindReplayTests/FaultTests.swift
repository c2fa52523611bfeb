import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindFaultChild
@testable import RewindReplay
import RewindTestSupport
import RewindSupport

@Suite("Faults: a writer killed with SIGKILL", .ownThreads)
struct FaultTests {
    /// The session a round writes into: its uuid, the seed of its script, and the highest seq a
    /// child reported durable.
    struct Script {
        var uuid: String
        var seed: UInt64
        var committed: Int64 = -1
    }

    @Test("20 rounds of kill -9 at random moments: every time the log verifies and each session is a gap-free prefix of what was sent")
    func killRepeatedly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fault.db")
        let runSeed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: runSeed)
        var scripts: [Script] = []
        for round in 0..<20 {
            let context = "run seed \(runSeed), round \(round)"
            let index: Int
            if scripts.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
                scripts.append(Script(uuid: String(format: "fault-%04d", scripts.count), seed: random.next()))
                index = scripts.count - 1
            } else {
                index = Int.random(in: 0..<scripts.count, using: &random)
            }
            let script = scripts[index]
            let child = try ChildProcess("RewindFaultChild", arguments: [path, script.uuid, String(script.seed)])
            let next = child.wait(timeout: 60) { line in line.hasPrefix("ready ") ? Int64(line.dropFirst(6)) : nil }
            guard let next else {
                child.kill()
                Issue.record(Comment(rawValue: "\(context): the child never said it was ready: \(child.output)"))
                return
            }
            #expect(next > script.committed, "\(context)")
            // Kill once it has committed a random number of events more, at a random point of the
            // next commit cycle.
            let target = next + Int64.random(in: 1...3_000, using: &random)
            let reached = child.wait(timeout: 60) { line -> Int64? in
                guard line.hasPrefix("committed "), let seq = Int64(line.dropFirst(10)), seq >= target else { return nil }
                return seq
            }
            usleep(UInt32.random(in: 0..<20_000, using: &random))
            child.kill()
            #expect(child.process.endedBySignal == true, "\(context)")
            guard reached != nil else {
                Issue.record(Comment(rawValue: "\(context): the child never committed seq \(target): \(child.output.suffix(5))"))
                return
            }
            let committed = child.output.compactMap { $0.hasPrefix("committed ") ? Int64($0.dropFirst(10)) : nil }.max() ?? -1
            scripts[index].committed = max(script.committed, committed)
            try check(path: path, script: scripts[index], context: context)
        }
        // Every session, not only the last one written, still verifies.
        for script in scripts { try check(path: path, script: script, context: "final check, run seed \(runSeed)") }
    }

    @Test("a child whose parent dies stops writing on its own, instead of running for ever")
    func orphanStops() throws {
        let directory = try TemporaryDirectory()
        let output = directory.path("child.out")
        // A shell starts the child, waits until it writes, prints its pid and exits: the child is
        // then an orphan, as when a test process crashes before killing it.
        let script = #""$0" "$1" orphan-1 7 > "$2" & pid=$!; while ! grep -q committed "$2"; do sleep 0.05; done; echo $pid"#
        let shell = try Subprocess("/bin/sh", ["-c", script, ChildProcess.executable("RewindFaultChild").path, directory.path("orphan.db"), output],
                                   output: .pipe)
        let printed = String(decoding: shell.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        #expect(shell.waitForExit(timeout: 60) == 0)
        let pid = try #require(Int32(printed.trimmingCharacters(in: .whitespacesAndNewlines)), "the shell printed \(printed)")
        defer { kill(pid, SIGKILL) }
        // Gone, or a zombie waiting for whoever adopted it to reap it.
        func ended() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !ended(), ContinuousClock.now < deadline { usleep(20_000) }
        #expect(ended(), "the orphaned child \(pid) is still running")
    }

    /// The session verifies, holds every seq a child reported durable, and each seq holds the
    /// action the script sends and the state it gives.
    func check(path: String, script: Script, context: String) throws {
        let reader = try LogReader(path: path)
        let session = try reader.session(named: script.uuid)
        #expect(session.uuid == script.uuid, "\(context)")
        let timeline = try Timeline(reader: reader, session: session.id)
        let report = try timeline.verify()
        #expect(report.passed, "\(context): \(report.problem?.description ?? "")")
        let last = try #require(try timeline.lastSeq(), "\(context)")
        #expect(last >= script.committed, "\(context): a seq reported durable is missing")
        let events = try reader.events(session: session.id)
        #expect(events.map(\.seq) == Array(0...last), "\(context)")
        for event in events.dropFirst() {
            #expect(event.action == FaultScript.action(seed: script.seed, seq: event.seq), "\(context): seq \(event.seq)")
            #expect(event.coalesced == FaultScript.isCoalesced(seed: script.seed, seq: event.seq), "\(context): seq \(event.seq)")
            if event.action != FaultScript.action(seed: script.seed, seq: event.seq) { break }
        }
        #expect(try timeline.state(at: last) == FaultScript.states(seed: script.seed, through: last).recorded, "\(context)")
    }
}
