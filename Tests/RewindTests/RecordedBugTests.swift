import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport
import RewindSupport

/// A session recorded by a store, exported as JSONL (what `rewind test` writes beside its test),
/// read back and verified: its causes, send sites and redactions come back, a changed reducer is
/// caught at the right seq with its send site, and a reducer that reads the world is named.
@MainActor
@Suite("A recorded bug becomes a test", .ownThreads)
struct RecordedBugTests {
    /// Records `store` sending `actions` (the load's effect too) into `path`; returns the session's uuid.
    func record(_ actions: [AppAction], into path: String, reducer: @escaping Reducer<AppState, AppAction> = appReducer,
                line: Int = #line) async throws -> String {
        let store = Store(initialState: AppState(), reducer: reducer)
        let recorder = store.record(to: .file(path), app: "Checkout", redacting: ["/auth/token"])
        for action in actions { await store.send(action).finish() }
        #expect(await store.finishRecording().delivered)
        return recorder.session.uuid
    }

    func exportJSONL(_ path: String, session: String, to file: String) throws {
        let reader = try LogReader(path: path)
        var bytes: [UInt8] = []
        try SessionExporter(reader: reader, session: try reader.session(named: session)).write(.jsonl) { bytes += $0 }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
    }

    let actions: [AppAction] = [.increment, .setToken("s3cret-token"), .add(4), .load, .add(7), .append("x"), .add(2)]

    @Test("the JSONL keeps causes, send sites and redactions; the reducer reproduces every state")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("bug.db"), fixture = directory.path("bug.jsonl")
        let uuid = try await record(actions, into: log)
        try exportJSONL(log, session: uuid, to: fixture)
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        #expect(!text.contains("s3cret-token"))
        let fromLog = try Recording.load(fromLog: log, session: uuid)
        let fromFile = try Recording.load(fromJSONL: fixture)
        #expect(fromFile.redacted == ["/auth/token"])
        #expect(fromFile.steps.map(\.seq) == fromLog.steps.map(\.seq))
        #expect(fromFile.steps.map(\.cause) == fromLog.steps.map(\.cause))
        #expect(fromFile.steps.map(\.site) == fromLog.steps.map(\.site))
        #expect(fromFile.steps.contains { $0.cause == 4 })   // `.loaded`, sent by the load's effect
        // Each site is a send of this file or the load effect's, in the shared app model.
        #expect(fromFile.steps.allSatisfy { ["RewindTests/RecordedBugTests.swift", "RewindAppTestSupport/TestModels.swift"].contains($0.site?.file) })
        // The replayed states are redacted as the recorder redacted them, so the token passes.
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(in: fromFile) == nil)
    }

    @Test("a changed reducer fails at the seq, naming the action's send site and each changed path")
    func changedReducerIsCaught() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("bug.db"), fixture = directory.path("bug.jsonl")
        let uuid = try await record(actions, into: log)
        try exportJSONL(log, session: uuid, to: fixture)
        let recording = try Recording.load(fromJSONL: fixture)
        let mismatch = try #require(try ReplayVerifier(reducer: changedReducer).firstMismatch(in: recording))
        // count passes 10 at seq 6 (`add 7` → 12); the next add, seq 8, adds one too many.
        #expect(mismatch.seq == 8)
        #expect(mismatch.kind == .stateDiffers)
        let site = try #require(recording.steps.first { $0.seq == 8 }?.site)
        #expect(mismatch.description == """
            state differs at seq 8 after {"add":{"_0":2}} (sent at \(site.file):\(site.line) \(site.function)):
              /count  recorded: 14  replayed: 15
            """)
    }

    @Test("a reducer that is not deterministic is named at the first seq where it differs from itself")
    func notDeterministic() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("bug.db")
        let uuid = try await record(actions, into: log)
        let recording = try Recording.load(fromLog: log, session: uuid)
        let counter = WorldCounter()
        // Reads a value from outside the action at `append`: a stand-in for Date() or UUID().
        let impure: Reducer<AppState, AppAction> = { state, action in
            if case .append = action {
                state.items.append("item \(counter.next())")
                return .none
            }
            return appReducer(&state, action)
        }
        let mismatch = try #require(try ReplayVerifier(reducer: impure).firstMismatch(in: recording))
        #expect(mismatch.kind == .notDeterministic)
        #expect(mismatch.seq == 7)
        #expect(mismatch.changes.map(\.path.description) == ["/items/0"])
        #expect(mismatch.description.hasPrefix("the reducer is not deterministic at seq 7 after {\"append\":{\"_0\":\"x\"}}"))
        #expect(mismatch.description.contains("/items/0  first run: \"item 1\"  second run: \"item 2\""))
        #expect(mismatch.description.contains("Docs/Integrating.md"))
    }

    @Test("with an expectation the recorded bug fails, naming the seq, action, site and the expected, replayed and recorded values; the fixed reducer passes")
    func expectationFailsUntilFixed() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("bug.db"), fixture = directory.path("bug.jsonl")
        let uuid = try await record(actions, into: log)
        try exportJSONL(log, session: uuid, to: fixture)
        let recording = try Recording.load(fromJSONL: fixture)
        // The recording holds the bug: at seq 8 (add 2) the count should have been 15, not 14.
        let expected = [try ReplayExpectation(seq: 8, pointer: "/count", json: "15")]
        let buggy = try #require(try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording, expecting: expected))
        #expect(buggy.kind == .notAsExpected)
        #expect(buggy.seq == 8)
        let site = try #require(recording.steps.first { $0.seq == 8 }?.site)
        #expect(buggy.description == """
            the state at seq 8 after {"add":{"_0":2}} (sent at \(site.file):\(site.line) \(site.function)) is not what it should be:
              /count  expected: 15  replayed: 14  recorded: 14
            """)
        // The fix (one more for every add past 10) gives it; the states before seq 8 still match.
        #expect(try ReplayVerifier(reducer: changedReducer).firstMismatch(in: recording, expecting: expected) == nil)
        // Without the expectation the same fix fails against the recording, which holds the bug.
        #expect(try ReplayVerifier(reducer: changedReducer).firstMismatch(in: recording)?.kind == .stateDiffers)
        // A change before the expected seq is still caught against the recording.
        let earlier: Reducer<AppState, AppAction> = { state, action in
            if case .add(4) = action { state.count += 100; return .none }
            return changedReducer(&state, action)
        }
        let early = try #require(try ReplayVerifier(reducer: earlier).firstMismatch(in: recording, expecting: expected))
        #expect(early.kind == .stateDiffers)
        #expect(early.seq == 3)
        // A value the reducer does not give at all, and an expectation past the recording.
        let missing = [try ReplayExpectation(seq: 8, pointer: "/total", json: "1")]
        #expect(try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording, expecting: missing)?.description
            .hasSuffix("  /total  expected: 1  replayed: absent  recorded: absent") == true)
        #expect(throws: ExpectationError.self) {
            try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording, expecting: [ReplayExpectation(seq: 40, pointer: "", json: "1")])
        }
        #expect(throws: ExpectationError.self) { try ReplayExpectation(seq: 8, pointer: "count", json: "1") }
        #expect(throws: ExpectationError.self) { try ReplayExpectation(seq: 8, pointer: "/count", json: "fifteen") }
    }

    @Test("a reducer that reads the clock to the millisecond is named as not deterministic, with the path that changed")
    func clockToTheMillisecond() async throws {
        let directory = try TemporaryDirectory()
        let log = directory.path("clock.db")
        // An order id made from the clock, as the issue's checkout did.
        let stamping: Reducer<AppState, AppAction> = { state, action in
            if case .append(let item) = action {
                state.items.append("\(item)@\(Int64(Date().timeIntervalSince1970 * 1000))")
                return .none
            }
            return appReducer(&state, action)
        }
        let uuid = try await record([.increment, .append("order-12373"), .add(2)], into: log, reducer: stamping)
        let recording = try Recording.load(fromLog: log, session: uuid)
        // The replay runs in a later millisecond than the recording did.
        let recordedAt = try #require(recording.steps.last?.at)
        let deadline = Date(timeIntervalSinceNow: 5)
        while Date() <= recordedAt.addingTimeInterval(0.002), Date() < deadline {}
        let mismatch = try #require(try ReplayVerifier(reducer: stamping).firstMismatch(in: recording))
        #expect(mismatch.kind == .notDeterministic, "\(mismatch)")
        #expect(mismatch.seq == 2)
        #expect(mismatch.changes.map(\.path.description) == ["/items/0"])
        #expect(mismatch.description.hasPrefix("the reducer is not deterministic at seq 2 after {\"append\":{\"_0\":\"order-12373\"}}"))
        #expect(mismatch.description.contains("/items/0  first run: \"order-12373@"))
        // The same at an expected value: the expectation is not what fails.
        let expected = [try ReplayExpectation(seq: 2, pointer: "/items/0", json: #""order-12373""#)]
        #expect(try ReplayVerifier(reducer: stamping).firstMismatch(in: recording, expecting: expected)?.kind == .notDeterministic)
        // Turned off, the difference is a plain one.
        var unchecked = ReplayVerifier(reducer: stamping)
        unchecked.checksDeterminism = false
        #expect(try unchecked.firstMismatch(in: recording)?.kind == .stateDiffers)
    }

    @Test("a failure prints at most the lines asked for, then how many more")
    func maxLines() {
        let changes = (0..<30).map { JSONChange(kind: .removed, path: JSONPointer(tokens: ["n\($0)"]), oldValue: .number(JSONNumber(Int64($0))), newValue: nil) }
        let mismatch = ReplayMismatch(seq: 3, action: "tick", expected: [:], actual: [:], changes: changes)
        let lines = mismatch.description(maxLines: 5).split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines[1] == "  /n0  recorded: 0  replayed: absent")
        #expect(lines[6] == "  … and 25 more")
        #expect(mismatch.description.split(separator: "\n").count == 22)
    }
}

/// Counts up: the outside world a non-deterministic reducer reads.
final class WorldCounter: @unchecked Sendable {
    private let lock = Mutex()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
