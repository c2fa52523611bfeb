import Foundation
import Testing
import RewindTestSupport

/// The runner every CLI test goes through fails a run at its deadline rather than hang the suite,
/// also when another process still holds the run's output (a crash backtracer once did, forever).
@Suite("The CLI tests' runner", .ownThreads)
struct CLIRunnerTests {
    @Test("a run past its deadline is killed and said, even with its output held by a process it left behind")
    func deadline() throws {
        let started = ContinuousClock.now
        let run = try CLIRunner.run(["-c", "echo begun; echo said >&2; sleep 127 & sleep 127"], program: URL(fileURLWithPath: "/bin/sh"), deadlineSeconds: 1)
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(run.status == -1)
        #expect(run.stderr.hasPrefix("CLIRunner: sh -c echo begun; echo said >&2; sleep 127 & sleep 127 still ran after 1 s and was killed"), "\(run.stderr)")
        // What it wrote before the deadline is kept, though its pipe is still held.
        #expect(run.stdout == "begun\n", "\(run.stdout)")
        #expect(run.stderr.hasSuffix("(its output is held by another process; what it wrote before: said\n)"), "\(run.stderr)")
        _ = try? CLIRunner.run(["-f", "sleep 127"], program: URL(fileURLWithPath: "/usr/bin/pkill"))
    }

    @Test("a run within its deadline gives its status and output")
    func withinDeadline() throws {
        let run = try CLIRunner.run(["-c", "echo out; echo err >&2; exit 3"], program: URL(fileURLWithPath: "/bin/sh"), deadlineSeconds: 60)
        #expect(run.status == 3)
        #expect(run.stdout == "out\n")
        #expect(run.stderr == "err\n")
    }
}
