import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import Testing
import RewindTestSupport
@testable import RewindRecorder

/// Issue 40: an app whose reducer traps dies of it, and its next run delivers the crashed
/// session with one last event, `@@rewind/crashed`: the signal, the action being reduced (its
/// seq and send site), and how many recorded actions the crash took with it. Real child
/// processes (`RewindRecorderChild trap`, a reducer behind a StoreLink) and a real `rewind serve`.
@Suite("A crash becomes its history", .ownThreads)
struct CrashHistoryTests {
    static let child = StoreAndForwardTests.child
    /// Swift's backtracer, which the handler chains to, takes seconds to symbolicate: off here.
    static let quietCrash = ["SWIFT_BACKTRACE": "enable=no"]

    /// Runs the child trapping on action `at`; returns the session's uuid and its exit status.
    static func crash(at action: Int, paced: Bool, environment: [String: String]) throws -> (uuid: String, status: Int32) {
        let run = try CLIRunner.run([String(action), "trap"] + (paced ? ["paced"] : []), program: child,
                                    environment: environment.merging(quietCrash) { $1 })
        let uuid = try #require(run.stdout.split(separator: "\n").first.map(String.init), "\(run.stderr)")
        #expect(run.stderr.contains("the reducer traps on action \(action)"), "\(run.stderr)")
        return (uuid, run.status)
    }

    @Test("crashed at UI pace and at full speed: the next run delivers each session ended by @@rewind/crashed, which names the signal and the action, and the events its log lacks are counted exactly",
          arguments: [true, false])
    func crashIsDelivered(paced: Bool) throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let port = try StoreAndForwardTests.portNothingListensOn()
        let environment = place.environment(port: port)
        let crashed = try Self.crash(at: 40, paced: paced, environment: environment)
        // Died of the trap (a signal), not an exit of its own.
        #expect(crashed.status != 0)
        let journal = place.outbox + "/crashes/\(crashed.uuid).crash"
        #expect(FileManager.default.fileExists(atPath: journal))

        let serve = try place.serve(port: port)
        defer { StoreAndForwardTests.stop(serve) }
        // The next run waits until the earlier sessions are delivered, then finishes.
        let run = try CLIRunner.run(["3", "catchup-finish"], program: Self.child, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let next = (uuid: try #require(run.stdout.split(separator: "\n").first.map(String.init)),
                    result: try JSONValue(parsing: try #require(run.stdout.split(separator: "\n").dropFirst().first.map(String.init))))
        #expect(next.result["delivered"] == true, "\(next.result) \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: journal))

        let reader = try LogReader(path: place.db)
        let session = try reader.session(named: crashed.uuid)
        #expect(session.endedAt != nil)
        let lastSeq = try #require(session.lastSeq)
        let last = try #require(try reader.event(session: session.id, seq: lastSeq))
        #expect(last.actionType == "@@rewind/crashed")
        let action = last.action
        #expect(["SIGILL", "SIGTRAP"].contains(action["signal"]?.stringValue ?? ""), "\(action)")
        #expect(action["reducing"]?["seq"] == 40, "\(action)")
        // The action itself, which the watcher thread wrote while the handler waited.
        #expect(action["reducing"]?["type"] == "add", "\(action)")
        #expect(action["reducing"]?["action"] == ["add": ["_0": 40]], "\(action)")
        let lost = try #require(action["lost"]?.numberValue?.int64Value)
        if try reader.event(session: session.id, seq: 0)?.actionType == "@@rewind/unknown" {
            // Nothing reached the device's log before the crash (a loaded machine): the session
            // is made to tell it, and every one of the 39 actions and the initial state is lost.
            #expect(lastSeq == 1 && lost == 40, "\(action)")
        } else {
            // Seq 0 (the initial state) and the actions the log has, then the crash: with those
            // lost, 39 actions in all.
            #expect((lastSeq - 1) + lost == 39, "last \(lastSeq), lost \(lost)")
            #expect(try Timeline(reader: reader, session: session.id).verify().passed)
        }
        // The send site is the child's (a StoreLink has none: the action is named by its seq).
        #expect(action["reducing"]?["site"] == nil)
        // The run after the crash is a session of its own, delivered whole.
        try StoreAndForwardTests.expectStored(next.uuid, through: 3, in: place.db)

        // `rewind sessions` says so: --crashed lists it alone, --json carries the crash, and the
        // table's CRASH column names the signal and the action.
        let listed = try CLIRunner.run(["sessions", "--crashed", "--json", "--db", place.db])
        let lines = try jsonLines(listed.stdout)
        #expect(lines.map { $0["uuid"]?.stringValue } == [crashed.uuid], "\(listed.stdout)")
        #expect(lines.first?["crash"] == action)
        #expect(lines.first?["state"] == "ended")
        let table = try CLIRunner.run(["sessions", "--db", place.db], environment: ["NO_COLOR": "1"])
        let row = try #require(table.stdout.split(separator: "\n").first { $0.contains(String(crashed.uuid.prefix(8))) })
        #expect(row.hasSuffix("in add (seq 40)"), "\(table.stdout)")
        #expect(table.stdout.split(separator: "\n").first?.hasSuffix("CRASH") == true, "\(table.stdout)")
        let refused = try CLIRunner.run(["sessions", "--crashed", "--limit", "5", "--db", place.db])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--crashed lists every crashed session at once; it takes no --limit or --after."), "\(refused.stderr)")
    }

    @Test("a session the app ended leaves no journal behind, and a run killed with SIGKILL leaves one that the next run reads as ended without a word")
    func noJournalAfterAnEndAndKilledIsInterrupted() throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let port = try StoreAndForwardTests.portNothingListensOn()
        let environment = place.environment(port: port)
        let ended = try StoreAndForwardTests.record(4, environment: environment)
        #expect(!FileManager.default.fileExists(atPath: place.outbox + "/crashes/\(ended.uuid).crash"))

        let app = try RunningCLI(["20", "commit"], environment: environment, program: Self.child)
        #expect(app.wait { out, _ in out.contains("committed\n") }, "\(app.stdout) \(app.stderr)")
        let uuid = try #require(app.stdout.split(separator: "\n").first.map(String.init))
        #expect(FileManager.default.fileExists(atPath: place.outbox + "/crashes/\(uuid).crash"))
        app.signal(SIGKILL)
        _ = app.waitForExit()

        let serve = try place.serve(port: port)
        defer { StoreAndForwardTests.stop(serve) }
        let next = try StoreAndForwardTests.record(2, environment: environment)
        #expect(next.result["delivered"] == true, "\(next.result) \(next.stderr)")
        #expect(!FileManager.default.fileExists(atPath: place.outbox + "/crashes/\(uuid).crash"))
        let reader = try LogReader(path: place.db)
        let killed = try reader.session(named: uuid)
        // Every committed event delivered, no crash said (no handler runs for SIGKILL), no end.
        #expect(killed.lastSeq == 20)
        #expect(killed.endedAt == nil)
        let last = try #require(try reader.event(session: killed.id, seq: 20))
        #expect(last.actionType != "@@rewind/crashed")
    }

    @Test("a crashed session its log never had (a loaded device) is made with an unknown seq 0 and the crash; rewind push delivers it, and the server keeps both")
    func madeSessionIsDelivered() throws {
        let place = try StoreAndForwardTests.Place()
        defer { place.dir.cleanup() }
        let log = place.dir.path("device.db")
        let journals = CrashJournal.folder(forLog: log)
        // A log of the app's with another session (the next run's), and the journal of one that
        // crashed before anything reached the log.
        let writer = try SharedLogWriters.borrow(log)
        _ = try writer.openSession(uuid: "22222222-0000-4000-8000-000000000001", app: "Shop", startedAt: Date(), meta: [:], replayOf: nil,
                                   run: nil, hashVersion: .v2)
        let crashed = "22222222-0000-4000-8000-000000000002"
        let journal = try #require(CrashJournal(folder: journals, session: RecordingSession(uuid: crashed, app: "Shop", startedAt: Date(), meta: [:])) { nil })
        journal.slot.pointee.recorded_through = 7
        journal.slot.pointee.signal = SIGSEGV
        journal.close(removing: false)
        CrashJournal.recover(in: journals, path: log, writer: writer)
        SharedLogWriters.giveBack(log)

        let serve = try place.serve()
        defer { StoreAndForwardTests.stop(serve) }
        let port = try #require(serve.port())
        let push = try CLIRunner.run(["push", "--db", log, "--server", "ws://127.0.0.1:\(port)/app"])
        #expect(push.status == 0, "\(push.stdout) \(push.stderr)")
        let reader = try LogReader(path: place.db)
        let session = try reader.session(named: crashed)
        #expect(session.lastSeq == 1)
        #expect(try reader.event(session: session.id, seq: 0)?.actionType == "@@rewind/unknown")
        #expect(session.crash?["lost"] == 8, "\(String(describing: session.crash))")
        #expect(session.crashSummary == "SIGSEGV between actions")
        #expect(session.endedAt != nil)
        #expect(try Timeline(reader: reader, session: session.id).verify().passed)
    }
}
