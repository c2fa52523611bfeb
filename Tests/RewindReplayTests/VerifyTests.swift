import Foundation
import RewindJSON
@testable import RewindLog
import Testing
@testable import RewindReplay
import RewindTestSupport

/// Damages a log the way bit-rot or a buggy tool would: through a raw connection whose
/// append-only triggers are dropped first (in the test's own file).
enum Corruption {
    static func execute(_ session: RecordedSession, _ sql: String) throws {
        let connection = try Connection(path: session.path)
        try connection.execute("""
            DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;
            DROP TRIGGER IF EXISTS keyframes_no_update; DROP TRIGGER IF EXISTS keyframes_no_delete;
            DROP TRIGGER IF EXISTS keyframes_need_event; DROP TRIGGER IF EXISTS events_extend_session;
            """)
        try connection.execute(sql)
    }
}

@Suite("Timeline: verify", .ownThreads)
struct VerifyTests {
    @Test("a sound session passes, with progress reported up to the last event")
    func passes() throws {
        let session = try RecordedSession.make(count: 5_000, seed: 51, policy: KeyframePolicy(maxEvents: 300), coalesceEvery: 9)
        let timeline = try Timeline(path: session.path, session: "latest")
        var progress: [VerifyProgress] = []
        let report = try timeline.verify { progress.append($0) }
        #expect(report.passed)
        #expect(report.problem == nil)
        #expect(report.eventsChecked == 5_001)
        #expect(report.keyframesChecked == (try LogReader(path: session.path).keyframeSeqs(session: session.sessionID).count))
        #expect(progress.last == VerifyProgress(checked: 5_001, total: 5_001))
        #expect(progress.count >= 2)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.checked < $1.checked })
    }

    @Test("a session of state hash version 2 verifies by its own hash; the version-1 hash of the same state fails it")
    func hashVersions() throws {
        let session = try RecordedSession.make(count: 600, seed: 52, hashVersion: .v2)
        let reader = try LogReader(path: session.path)
        #expect(try reader.session(id: session.sessionID).hashVersion == .v2)
        #expect(try reader.events(session: session.sessionID, from: 0, limit: 700).map(\.hash) == session.states.map(\.treeHash))
        #expect(try Timeline(path: session.path, session: "latest").verify().passed)
        // The version-1 hash at seq 300 is a hash of the right state, but not this session's hash.
        let v1 = Int64(bitPattern: session.states[300].stableHash)
        try Corruption.execute(session, "UPDATE events SET hash = \(v1) WHERE session_id = \(session.sessionID) AND seq = 300")
        let report = try Timeline(path: session.path, session: "latest").verify()
        #expect(report.problem?.seq == 300)
        #expect(report.problem?.kind == .hashMismatch)
        // And a version-1 session still verifies as it always has.
        let older = try RecordedSession.make(count: 300, seed: 53)
        #expect(try LogReader(path: older.path).session(id: older.sessionID).hashVersion == .v1)
        #expect(try Timeline(path: older.path, session: "latest").verify().passed)
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var sql: String
        var seq: Int64
        var kind: VerifyProblem.Kind
        var message: String
        var description: String { name }
    }

    static let keyframeSeq: Int64 = 200

    static let cases: [Case] = [
        Case(name: "a wrong hash", sql: "UPDATE events SET hash = hash + 1 WHERE seq = 1203",
             seq: 1_203, kind: .hashMismatch, message: "seq 1203: hash does not match the state the patches give"),
        Case(name: "a keyframe that is not the state", sql: "UPDATE keyframes SET state = '{\"count\":-1}' WHERE seq = 200",
             seq: 200, kind: .keyframeMismatch, message: "seq 200: the keyframe differs from the state the patches give"),
        Case(name: "a gap", sql: "DELETE FROM events WHERE seq = 777",
             seq: 777, kind: .missingSeq, message: "seq 777: no event is stored, but seq 778 is"),
        Case(name: "a missing first event", sql: "DELETE FROM events WHERE seq = 0",
             seq: 0, kind: .missingSeq, message: "seq 0: no event is stored, but seq 1 is"),
        Case(name: "no initial keyframe", sql: "DELETE FROM keyframes WHERE seq = 0",
             seq: 0, kind: .missingInitialKeyframe, message: "seq 0: no keyframe holds the initial state"),
        Case(name: "a patch that is not JSON", sql: "UPDATE events SET patch = '[{\"op\":' WHERE seq = 40",
             seq: 40, kind: .unreadable, message: "seq 40: the stored patch is not valid JSON: "),
        Case(name: "a patch that is not a JSON Patch", sql: "UPDATE events SET patch = '[{\"op\":\"jump\",\"path\":\"/x\"}]' WHERE seq = 41",
             seq: 41, kind: .invalidPatch, message: "seq 41: the patch is not a JSON Patch: "),
        Case(name: "a patch that does not apply", sql: "UPDATE events SET patch = '[{\"op\":\"remove\",\"path\":\"/nope\"}]' WHERE seq = 42",
             seq: 42, kind: .patchDoesNotApply, message: "seq 42: the patch does not apply to the state before it: "),
        Case(name: "a patch that applies but changes something else", sql: "UPDATE events SET patch = '[{\"op\":\"add\",\"path\":\"/extra\",\"value\":1}]', inverse = '[{\"op\":\"remove\",\"path\":\"/extra\"}]' WHERE seq = 43",
             seq: 43, kind: .hashMismatch, message: "seq 43: hash does not match the state the patches give"),
        Case(name: "an inverse that leads elsewhere", sql: "UPDATE events SET inverse = '[{\"op\":\"add\",\"path\":\"/extra\",\"value\":1}]' WHERE seq = 44",
             seq: 44, kind: .inverseMismatch, message: "seq 44: the inverse patch does not lead back to the state before it"),
        Case(name: "a keyframe without an event", sql: "INSERT INTO keyframes(session_id, seq, state) VALUES (1, 9999, '{}')",
             seq: 9_999, kind: .orphanKeyframe, message: "seq 9999: a keyframe is stored, but no event"),
        Case(name: "a keyframe that is not JSON", sql: "UPDATE keyframes SET state = 'not json' WHERE seq = 200",
             seq: 200, kind: .unreadable, message: "seq 200: the stored keyframe is not valid JSON: "),
        Case(name: "two problems: the first by seq is reported", sql: "UPDATE events SET hash = 0 WHERE seq IN (900, 300)",
             seq: 300, kind: .hashMismatch, message: "seq 300: hash does not match the state the patches give"),
    ]

    @Test("a damaged session reports its first problem by seq, in a sentence", arguments: cases)
    func reportsFirstProblem(_ damage: Case) throws {
        let session = try RecordedSession.make(count: 1_500, seed: 52, policy: KeyframePolicy(maxEvents: 100, maxPatchBytesRatio: 1_000))
        let good = try Timeline(path: session.path, session: "latest").verify()
        #expect(good.passed)
        try Corruption.execute(session, damage.sql)
        let report = try Timeline(path: session.path, session: "latest").verify()
        #expect(!report.passed)
        #expect(report.problem?.seq == damage.seq)
        #expect(report.problem?.kind == damage.kind)
        #expect(report.problem?.description.hasPrefix(damage.message) == true, "\(report.problem?.description ?? "no problem")")
        #expect(report.eventsChecked <= Int(damage.seq) + 1)
    }

    @Test("coalesced events (empty patch, the previous state's hash) pass; a coalesced event with another hash does not")
    func coalesced() throws {
        let session = try RecordedSession.make(count: 300, seed: 53, coalesceEvery: 3)
        #expect(session.events[3].coalesced && session.events[3].patch == [] && session.events[3].hash == session.events[2].hash)
        #expect(try Timeline(path: session.path, session: "latest").verify().passed)
        try Corruption.execute(session, "UPDATE events SET hash = hash + 1 WHERE seq = 30")
        let report = try Timeline(path: session.path, session: "latest").verify()
        #expect(report.problem == VerifyProblem(seq: 30, kind: .hashMismatch, message: "hash does not match the state the patches give"))
    }

    @Test("sessions are checked apart: damage in one leaves the other passing")
    func sessionsApart() throws {
        let directory = try TemporaryDirectory()
        let first = try RecordedSession.make(count: 200, seed: 54, in: directory, uuid: "aaaa")
        let second = try RecordedSession.make(count: 200, seed: 55, in: directory, uuid: "bbbb")
        #expect(first.sessionID != second.sessionID)
        try Corruption.execute(second, "UPDATE events SET hash = 0 WHERE session_id = \(second.sessionID) AND seq = 150")
        #expect(try Timeline(path: first.path, session: "aaaa").verify().passed)
        #expect(try Timeline(path: first.path, session: "bbbb").verify().problem?.seq == 150)
        #expect(try Timeline(path: first.path, session: "aaaa").state(at: 200) == first.states[200])
    }

    @Test("state(at:) reports a gap it meets as a broken chain, naming the missing seq")
    func stateAcrossGap() throws {
        let session = try RecordedSession.make(count: 300, seed: 56, policy: KeyframePolicy(maxEvents: 100, maxPatchBytesRatio: 1_000))
        try Corruption.execute(session, "DELETE FROM events WHERE seq = 120")
        let timeline = try Timeline(path: session.path, session: "latest", options: .uncached)
        #expect(throws: ReplayError.brokenChain(session: 1, seq: 120, reason: "seq 120 is missing")) { try timeline.state(at: 130) }
        #expect(try timeline.state(at: 119) == session.states[119])
        #expect(try timeline.state(at: 170) == session.states[170])
    }

    @Test("storage(): counts, stored bytes and the whole-state estimate")
    func storage() throws {
        let session = try RecordedSession.make(count: 400, seed: 57, policy: KeyframePolicy(maxEvents: 100, maxPatchBytesRatio: 1_000))
        let storage = try Timeline(path: session.path, session: "latest").storage()
        #expect(storage.events == 401)
        #expect(storage.keyframes == 5)
        let actualWhole = session.states.reduce(0) { $0 + Int64($1.serializedBytes().count) }
        let error = abs(Double(storage.wholeStateBytes - actualWhole)) / Double(actualWhole)
        #expect(error < 0.1, "estimate \(storage.wholeStateBytes), actual \(actualWhole)")
        let payload = session.events.reduce(Int64(0)) { total, event in
            total + Int64(event.action.serializedBytes().count + event.patch.serializedBytes().count + event.inverse.serializedBytes().count
                          + (event.keyframe?.serializedBytes().count ?? 0))
        }
        #expect(storage.payloadBytes == payload)
        #expect(SessionStorage.estimatedWholeStateBytes(events: 4, keyframes: [(0, 100), (2, 200)]) == 100 + 150 + 200 + 200)
        #expect(SessionStorage.estimatedWholeStateBytes(events: 0, keyframes: []) == 0)
    }
}
