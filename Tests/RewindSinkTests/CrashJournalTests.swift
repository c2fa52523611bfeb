import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import Testing
@testable import RewindRecorder
import RewindTestSupport

/// The crash journal in-process, without crashing: what a reduce writes into the slot, what the
/// watcher writes after a signal (redacted as the recorder redacts), that the journal goes with
/// the session's end, and how the next run writes a dead journal into its log.
@Suite("The crash journal", .serialized, .ownThreads)
struct CrashJournalTests {
    struct State: Codable, Sendable { var user = ""; var token = "" }
    enum Action: Codable, Sendable { case login(user: String, token: String) }

    @Test("before a reduce the slot has the send site and the seq to be; the watcher writes the action redacted by key and by the secrets seen in states")
    func slotAndRedactedAction() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.path("app.db")
        var state = State(user: "ann", token: "tok-0123456789")
        let recorder = Recorder<State, Action>(initialState: state, to: .file(path), metadata: RecordingMetadata(app: "Journal"),
                                               options: RecorderOptions(redacting: ["/token"]))
        // The state's token is a secret from now on (the recorder's thread has seen it).
        recorder.flush()
        let journal = try #require(recorder.crash)
        #expect(journal.path == folder.path(".app.db.crashes") + "/\(recorder.session.uuid).crash")
        #expect(FileManager.default.fileExists(atPath: journal.path))
        let action = Action.login(user: "ann", token: "tok-0123456789")
        recorder.willReduce(action, site: SendSite(file: "App/Login.swift", line: 42, function: "submit()"))
        // What a signal would start: the watcher writes the action being reduced.
        journal.writePendingAction()
        let record = CrashRecord(journal.slot.pointee)
        #expect(record.session == recorder.session.uuid)
        #expect(record.app == "Journal")
        #expect(record.signal == 0)
        #expect(record.recordedThrough == 0)
        let reducing = try #require(record.reducing)
        #expect(reducing.seq == 1)
        #expect(reducing.site == SendSite(file: "App/Login.swift", line: 42, function: "submit()"))
        #expect(reducing.type == "login")
        let written = try #require(reducing.action)
        #expect(!written.serialized().contains("tok-0123456789"), "\(written)")
        #expect(written["login"]?["user"] == "ann", "\(written)")

        // Recorded: no reduce runs, seq 1 is taken.
        state.user = "bob"
        recorder.record(action, state: state)
        let after = CrashRecord(journal.slot.pointee)
        #expect(after.reducing == nil)
        #expect(after.recordedThrough == 1)

        // The session ends: the journal goes.
        recorder.stop()
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    @Test("a dead journal with a signal ends its session in the log with @@rewind/crashed; one without a signal only goes; a live one stays")
    func recovery() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.path("app.db")
        let state = State(user: "ann")
        // A session that "crashed": its journal is written by hand as the handler would, after
        // the recorder stopped without ending it.
        let recorder = Recorder<State, Action>(initialState: state, to: .file(path), metadata: RecordingMetadata(app: "Journal"))
        recorder.record(.login(user: "ann", token: "x"), state: state)
        recorder.flush()
        let journal = try #require(recorder.crash)
        recorder.willReduce(.login(user: "ann", token: "y"), site: nil)
        journal.slot.pointee.signal = SIGSEGV
        journal.slot.pointee.signal_at_ns = 1_800_000_000_000_000_000
        let uuid = recorder.session.uuid
        // A journal held by a live process is never read: this one's, until it lets go.
        #expect(CrashJournal.dead(in: CrashJournal.folder(forLog: path)).isEmpty)
        journal.close(removing: false)
        let dead = CrashJournal.dead(in: CrashJournal.folder(forLog: path))
        #expect(dead.map(\.record.session) == [uuid])
        #expect(dead.first?.record.signal == SIGSEGV)

        // The next run (a sink's first open) writes it into the log: the crash after the last
        // event, and the session's end at the signal's time.
        let logWriter = try SharedLogWriters.borrow(path)
        defer { SharedLogWriters.giveBack(path) }
        CrashJournal.recover(in: CrashJournal.folder(forLog: path), path: path, writer: logWriter)
        #expect(CrashJournal.dead(in: CrashJournal.folder(forLog: path)).isEmpty)
        let reader = try LogReader(path: path)
        let session = try reader.session(named: uuid)
        let crash = try #require(session.crash)
        #expect(crash["signal"] == "SIGSEGV")
        #expect(crash["reducing"]?["seq"] == 2)
        #expect(crash["lost"] == 0)
        #expect(crash["at"] == 1_800_000_000_000)
        #expect(session.endedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(session.crashSummary == "SIGSEGV in a reduce (seq 2)")
        recorder.stop()
    }

    @Test("a session the log has begun without an event or a delivery mark, and one it never had: each is told with an unknown seq 0, the crash after it, and everything lost, and marked for delivery")
    func sessionsWithoutEvents() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.path("app.db")
        let journals = CrashJournal.folder(forLog: path)
        let begun = "11111111-0000-4000-8000-000000000001"
        let never = "11111111-0000-4000-8000-000000000002"
        let writer = try SharedLogWriters.borrow(path)
        defer { SharedLogWriters.giveBack(path) }
        _ = try writer.openSession(uuid: begun, app: "Journal", startedAt: Date(), meta: [:], replayOf: nil, run: nil, hashVersion: .v2)
        for uuid in [begun, never] {
            let session = RecordingSession(uuid: uuid, app: "Journal", startedAt: Date(), meta: [:])
            let journal = try #require(CrashJournal(folder: journals, session: session) { nil })
            journal.slot.pointee.recorded_through = 3
            journal.slot.pointee.signal = SIGABRT
            journal.close(removing: false)
        }
        CrashJournal.recover(in: journals, path: path, writer: writer, server: "ws://127.0.0.1:9/app")
        let reader = try LogReader(path: path)
        // Both are owed to the local log's server: the next catch-up delivers them.
        #expect(Set(try reader.pendingDeliveries().map(\.session.uuid)) == [begun, never])
        for uuid in [begun, never] {
            let session = try reader.session(named: uuid)
            #expect(session.lastSeq == 1, "\(uuid)")
            #expect(try reader.event(session: session.id, seq: 0)?.actionType == "@@rewind/unknown")
            // Seq 0 and the three actions the recorder was handed.
            #expect(session.crash?["lost"] == 4, "\(String(describing: session.crash))")
            #expect(session.crash?["reducing"] == .null)
            #expect(session.crashSummary == "SIGABRT between actions")
            #expect(try Timeline(reader: reader, session: session.id).verify().passed)
        }
        #expect(try reader.session(named: never).meta["lostBeforeWritten"] == true)
        #expect(CrashJournal.dead(in: journals).isEmpty)
    }
}
