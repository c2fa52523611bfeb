import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// The device's local log (store and forward) stays within its bound: sessions the server holds
/// go first, and events it lacks only past that, oldest first, said in one sentence.
@Suite("The local log's bound", .ownThreads)
struct OutboxTests {
    /// A session of `events` actions whose states carry 8 KB each, marked for `server` and
    /// acknowledged through `acked`.
    static func record(_ writer: LogWriter, uuid: String, events: Int, acked: Int64?, server: String) throws -> Int64 {
        let id = try writer.openSession(uuid: uuid, app: "Shop", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                        hashVersion: .v2)
        var builder = EventBuilder(sessionID: id, hashVersion: .v2)
        var batch: [LogEvent] = []
        for seq in 0...events {
            let state: JSONValue = ["seq": .number(JSONNumber(seq)), "notes": .string(String(repeating: "n", count: 8_000) + "\(seq)")]
            batch.append(builder.next(action: ["type": "note"], state: state, at: Date(timeIntervalSince1970: 1_700_000_000 + Double(seq))))
        }
        writer.append(batch)
        try writer.commit()
        if let acked { try writer.markDelivered(session: id, server: server, through: acked) }
        return id
    }

    @Test("past the bound, sessions the server holds are pruned first; then the oldest it lacks, in one sentence")
    func bound() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("Shop@127.0.0.1_7433.db")
        let server = "ws://127.0.0.1:7433/app"
        do {
            let writer = try LogWriter(path: path)
            defer { writer.close() }
            _ = try Self.record(writer, uuid: "11111111-0000-4000-8000-000000000001", events: 40, acked: -1, server: server)   // lacking
            _ = try Self.record(writer, uuid: "22222222-0000-4000-8000-000000000002", events: 40, acked: 40, server: server)   // delivered
            _ = try Self.record(writer, uuid: "33333333-0000-4000-8000-000000000003", events: 40, acked: 10, server: server)   // lacking
            _ = try Self.record(writer, uuid: "44444444-0000-4000-8000-000000000004", events: 40, acked: 40, server: server)   // delivered
        }
        let size = { () throws -> Int64 in try LogReader(path: path).usedBytes() }
        let whole = try size()
        // A bound the delivered sessions alone cannot bring it under: one lacking session goes too.
        let outbox = Outbox(path: path, server: server, limitBytes: whole * 2 / 5)
        let current = RecordingSession(uuid: "55555555-0000-4000-8000-000000000005", app: "Shop", startedAt: Date(), meta: [:])
        _ = try outbox.begin(current)
        let sentence = try #require(try outbox.enforceLimit(keeping: [current.uuid]))
        #expect(sentence.hasPrefix("the local log \(path) passed its bound of "), "\(sentence)")
        #expect(sentence.contains("41 events of 1 session the server does not have were dropped, oldest first (11111111)"), "\(sentence)")
        let left = try LogReader(path: path).sessions().map { String($0.uuid.prefix(8)) }
        #expect(left == ["33333333", "55555555"])
        #expect(try size() <= whole * 2 / 5)
        // Within the bound: nothing more goes, and nothing is said.
        #expect(try outbox.enforceLimit(keeping: [current.uuid]) == nil)
        #expect(try LogReader(path: path).sessions().count == 2)
    }

    @Test("a session recorded before owners gets its secret kept in the local log at catch-up, the same on every later run (issue 38)")
    func catchUpKeepsTheSecret() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("Shop@127.0.0.1_7433.db")
        let server = "ws://127.0.0.1:7433/app"
        let uuid = "66666666-0000-4000-8000-000000000006"
        do {
            let writer = try LogWriter(path: path)
            defer { writer.close() }
            let id = try Self.record(writer, uuid: uuid, events: 3, acked: -1, server: server)
            #expect(try writer.secret(session: id) == nil)
        }
        let first = try #require(try Outbox(path: path, server: server, limitBytes: 1 << 30).pending(app: "Shop", excluding: []).first)
        #expect(first.session.uuid == uuid)
        // Kept in the log, and read back as the same on a later run.
        let kept = try #require(try LogReader(path: path).owner(session: first.localID))
        #expect(kept.secret == first.session.secret && kept.digest == SessionOwner.keeping(first.session.secret).digest)
        let again = try #require(try Outbox(path: path, server: server, limitBytes: 1 << 30).pending(app: "Shop", excluding: []).first)
        #expect(again.session.secret == first.session.secret)
    }

    @Test("two sinks of one process on the same app and server: the second's catch-up never takes the first's live session")
    func liveSessionsOfOtherSinks() throws {
        let directory = try TemporaryDirectory()
        let reserved = try ReservedPort()
        let url = URL(string: "ws://127.0.0.1:\(reserved.port)")!
        struct S: Codable, Sendable { var n = 0 }
        struct A: Codable, Sendable { var type = "x" }
        let first = ServerSink(url: url, flushTimeout: .zero, localLog: directory.path("outbox"), report: nil)
        let recording = Recorder<S, A>(initialState: S(), to: .sinks([first]), metadata: RecordingMetadata(app: "Shop"))
        defer { first.disconnect() }
        for n in 1...5 { recording.record(A(), state: S(n: n)) }
        recording.flush()
        #expect(first.localLogPath != nil)
        // A second store of the same app, recording to the same server: its catch-up finds the
        // first's session in the shared local log, and must leave it alone (it is live).
        let second = ServerSink(url: url, flushTimeout: .zero, localLog: directory.path("outbox"), report: nil)
        let other = Recorder<S, A>(initialState: S(), to: .sinks([second]), metadata: RecordingMetadata(app: "Shop"))
        defer { second.disconnect() }
        other.flush()
        #expect(second.localLogPath == first.localLogPath)
        #expect(second.catchUpCount == 0)
        // Ended, the first session is an earlier one for the next sink.
        recording.stop()
        other.stop()
        let third = ServerSink(url: url, flushTimeout: .zero, localLog: directory.path("outbox"), report: nil)
        let later = Recorder<S, A>(initialState: S(), to: .sinks([third]), metadata: RecordingMetadata(app: "Shop"))
        defer { third.disconnect() }
        later.flush()
        let deadline = Date(timeIntervalSinceNow: 30)
        while third.catchUpCount < 2, Date() < deadline { usleep(1_000) }
        #expect(third.catchUpCount == 2)
        later.stop()
    }
}
