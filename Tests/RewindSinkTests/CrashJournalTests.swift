import CRewindCrash
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

    /// The recording stops when its sink fails, and the journal closes with it; the app goes on
    /// calling `record` and `willReduce`, which write into the journal's slot. The slot was
    /// unmapped at the close, and the next write crashed the app (a full test run saw it).
    @Test("a recorder whose log cannot be written stops, and the app's next actions write into no freed memory")
    func stoppedRecorderKeepsItsSlot() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        // A folder where the log would be: the journal is made beside it, the log fails.
        let path = folder.path("app.db")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let state = State(user: "ann")
        let recorder = Recorder<State, Action>(initialState: state, to: .file(path), metadata: RecordingMetadata(app: "Journal"))
        let journal = try #require(recorder.crash)
        #expect(waitUntil { recorder.lastError != nil }, "the recording did not stop")
        #expect(waitUntil { !FileManager.default.fileExists(atPath: journal.path) }, "the journal stayed")
        for number in 0..<1_000 {
            recorder.willReduce(.login(user: "ann", token: "t\(number)"), site: SendSite(file: "App.swift", line: number, function: "f()"))
            _ = recorder.record(.login(user: "ann", token: "t\(number)"), state: state)
        }
        #expect(!recorder.isRecording)
        #expect(CrashRecord(journal.slot.pointee).session == recorder.session.uuid)
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

    /// A slot as a file, for the journals a hostile or broken disk could hold.
    static func writeSlot(_ slot: rewind_crash_slot, to path: String) throws {
        var slot = slot
        let bytes = withUnsafeBytes(of: &slot) { Data($0) }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    static func copy<T>(_ text: String, into field: inout T) {
        withUnsafeMutableBytes(of: &field) { raw in
            let bytes = Array(text.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }

    @Test("journals a broken or hostile disk holds: too short, another magic, a session named latest or a prefix, a name that is not its session, numbers at their limits; none crashes the next run, none touches another session, the one that is a journal is told with lost saturated")
    func hostileJournals() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let path = folder.path("app.db")
        let journals = CrashJournal.folder(forLog: path)
        try FileManager.default.createDirectory(atPath: journals, withIntermediateDirectories: true)
        let writer = try SharedLogWriters.borrow(path)
        defer { SharedLogWriters.giveBack(path) }
        // Two sessions with events: `other` must come out as it went in.
        let target = "33333333-0000-4000-8000-000000000001"
        let other = "33333333-0000-4000-8000-000000000002"
        for uuid in [other, target] {
            let id = try writer.openSession(uuid: uuid, app: "Journal", startedAt: Date(), meta: [:], replayOf: nil, run: nil, hashVersion: .v2)
            let state: JSONValue = ["n": 0]
            writer.append([LogEvent(sessionID: id, seq: 0, at: Date(), action: ["type": "@@INIT"], hash: state.hash(.v2), keyframe: state)])
        }
        try writer.commit()

        func slot(session: String) -> rewind_crash_slot {
            var slot = rewind_crash_slot()
            slot.magic = REWIND_CRASH_MAGIC
            slot.version = REWIND_CRASH_VERSION
            slot.signal = SIGSEGV
            Self.copy(session, into: &slot.session)
            Self.copy("Journal", into: &slot.app)
            return slot
        }
        try Data("short".utf8).write(to: URL(fileURLWithPath: journals + "/short.crash"))
        var foreign = slot(session: other)
        foreign.magic = 0xDEAD_BEEF
        try Self.writeSlot(foreign, to: journals + "/\(other).crash")
        try Self.writeSlot(slot(session: "latest"), to: journals + "/latest.crash")
        try Self.writeSlot(slot(session: "33333333"), to: journals + "/33333333.crash")
        // A journal whose file names one session and whose slot names another.
        try Self.writeSlot(slot(session: other), to: journals + "/44444444-0000-4000-8000-000000000009.crash")
        // The target's journal, with every number at its limit and an action that is no JSON.
        var extreme = slot(session: target)
        extreme.recorded_through = .max
        extreme.next_seq = .min
        extreme.reducing = 1
        extreme.file_length = .max
        extreme.function_length = .max
        extreme.line = .min
        extreme.signal_at_ns = .max
        extreme.action_state = 1
        extreme.action_length = .max
        withUnsafeMutableBytes(of: &extreme.action) { $0.copyBytes(from: Array("{\"not json".utf8)) }
        withUnsafeMutableBytes(of: &extreme.file) { raw in for index in raw.indices { raw[index] = 0xFF } }
        try Self.writeSlot(extreme, to: journals + "/\(target).crash")
        // One the log never had: its count of what was lost starts below seq 0.
        let unseen = "33333333-0000-4000-8000-000000000003"
        var unseenSlot = slot(session: unseen)
        unseenSlot.recorded_through = .max
        try Self.writeSlot(unseenSlot, to: journals + "/\(unseen).crash")

        let dead = CrashJournal.dead(in: journals)
        #expect(dead.map(\.record.session) == [target, unseen], "\(dead.map(\.record.session))")
        CrashJournal.recover(in: journals, path: path, writer: writer)
        let reader = try LogReader(path: path)
        let untouched = try #require(try reader.session(uuid: other))
        #expect(untouched.lastSeq == 0 && untouched.endedAt == nil && untouched.crash == nil)
        let crashed = try #require(try reader.session(uuid: target))
        #expect(crashed.lastSeq == 1)
        #expect(crashed.crash?["lost"] == .number(JSONNumber(Int64.max)), "\(String(describing: crashed.crash))")
        #expect(crashed.crash?["reducing"]?["action"] == nil)
        #expect(try Timeline(reader: reader, session: crashed.id).verify().passed)
        let made = try #require(try reader.session(uuid: unseen))
        #expect(made.crash?["lost"] == .number(JSONNumber(Int64.max)), "\(String(describing: made.crash))")
        // What is no journal of Rewind's stays where it was; the journal is done with.
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: journals))
        #expect(left == ["short.crash", "\(other).crash", "latest.crash", "33333333.crash", "44444444-0000-4000-8000-000000000009.crash"])
    }
}
