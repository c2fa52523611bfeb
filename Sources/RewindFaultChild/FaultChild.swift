import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// `RewindFaultChild DB UUID SEED`: appends the session `UUID` (continuing it when the log has
/// it) with the events of ``FaultScript`` for `SEED`, as fast as the writer takes them, until it
/// is killed. It prints `ready NEXT` once it knows the next seq and `committed SEQ` each time a
/// batch ending at `SEQ` is durable. The fault tests kill it with SIGKILL.
@main
enum FaultChild {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let seed = UInt64(arguments[3]) else {
            FileHandle.standardError.write(Data("usage: RewindFaultChild DB UUID SEED\n".utf8))
            exit(2)
        }
        do {
            try run(path: arguments[1], uuid: arguments[2], seed: seed)
        } catch {
            FileHandle.standardError.write(Data("RewindFaultChild: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Keyframes often, so kills land around them too.
    static let policy = KeyframePolicy(maxEvents: 50)

    static func run(path: String, uuid: String, seed: UInt64) throws {
        let writer = try LogWriter(path: path)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let session = try writer.openSession(uuid: uuid, app: "FaultChild", startedAt: start, meta: ["seed": .string(String(seed))])
        let next = try writer.nextSeq(session: session)
        var builder: EventBuilder
        var actual: JSONValue
        if next == 0 {
            builder = EventBuilder(sessionID: session, policy: policy)
            actual = FaultScript.initialState
        } else {
            let states = FaultScript.states(seed: seed, through: next - 1)
            builder = EventBuilder(resuming: session, nextSeq: next, state: states.recorded, policy: policy)
            actual = states.actual
        }
        say("ready \(next)")
        let window = InFlightWindow(limit: 2_000)
        var random = SplitMix64(seed: seed ^ UInt64(bitPattern: next))
        // A test run that dies before killing this child (a crash of the test process) must not
        // leave it writing for ever: once the parent is gone, stop. One such orphan once used two
        // thirds of a core for an hour and skewed a sitting of benchmarks.
        let parent = getppid()
        while getppid() == parent {
            var batch: [LogEvent] = []
            for _ in 0..<(1 + Int(random.next() % 20)) {
                let seq = builder.nextSeq
                let at = start.addingTimeInterval(Double(seq) / 1_000)
                if seq == 0 {
                    batch.append(builder.initial(state: actual, at: at))
                    continue
                }
                let action = FaultScript.action(seed: seed, seq: seq)
                FaultScript.reduce(&actual, action)
                if FaultScript.isCoalesced(seed: seed, seq: seq) {
                    batch.append(builder.skipped(action: action, at: at, durationNs: 1_000))
                } else {
                    batch.append(builder.next(action: action, state: actual, at: at, durationNs: 1_000, cause: seq - 1))
                }
            }
            let last = batch[batch.count - 1].seq
            let count = batch.count
            window.acquire(count)
            writer.append(batch) { result in
                switch result {
                case .success:
                    say("committed \(last)")
                case .failure(let error):
                    FileHandle.standardError.write(Data("RewindFaultChild: \(error)\n".utf8))
                    exit(1)
                }
                window.release(count)
            }
        }
    }

    /// Writes one line to standard output at once (a pipe takes writes this small whole).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        // Nobody reads any more (the test that started this child is gone): stop.
        if written < 0 { exit(3) }
    }
}

/// Bounds the events appended but not yet committed, so the child never queues without limit.
final class InFlightWindow: Sendable {
    /// The events in flight; appends wait here for room, which each commit's release makes.
    private let inFlight = Condition(0)
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func acquire(_ count: Int) {
        let limit = limit
        _ = inFlight.withLock(when: { $0 == 0 || $0 + count <= limit }) { $0 += count }
    }

    func release(_ count: Int) {
        inFlight.update(waking: .all) { $0 -= count }
    }
}
