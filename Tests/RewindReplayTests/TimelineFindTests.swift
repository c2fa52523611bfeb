import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindReplay
import RewindTestSupport

/// `find` against a brute force: every state rebuilt, the value resolved at every seq, the
/// condition judged by a separate implementation, on random sessions whose array inserts and
/// removals shift the elements a path goes through.
@Suite("Timeline: find", .ownThreads)
struct TimelineFindTests {
    /// The condition as the test judges it, apart from `FindCondition.holds`.
    struct Case: CustomStringConvertible {
        var condition: FindCondition
        var judge: (JSONValue?) -> Bool
        var description: String { condition.description }
    }

    static func cases() throws -> [Case] {
        [
            Case(condition: .isEqual(true), judge: { $0 == .bool(true) }),
            Case(condition: .isEqual("dark"), judge: { $0 == .string("dark") }),
            Case(condition: .isNot(false), judge: { $0 != nil && $0 != .bool(false) }),
            Case(condition: .greaterThan(40), judge: { if case .number(let n)? = $0 { n.doubleValue > 40 } else { false } }),
            Case(condition: .lessThan(25), judge: { if case .number(let n)? = $0 { n.doubleValue < 25 } else { false } }),
            Case(condition: .matches(try FindPattern("^todo [0-9]*5$")), judge: {
                if case .string(let s)? = $0 { s.hasPrefix("todo ") && s.hasSuffix("5") && s.dropFirst(5).allSatisfy(\.isNumber) } else { false }
            }),
            Case(condition: .matches(try FindPattern("user 1")), judge: { if case .string(let s)? = $0 { s.contains("user 1") } else { false } }),
            Case(condition: .exists, judge: { $0 != nil }),
            Case(condition: .missing, judge: { $0 == nil }),
        ]
    }

    static let paths = ["/todos/2/done", "/todos/0/title", "/todos/4", "/count", "/user/name", "/user/prefs/theme", "/flags/f1", "/todos/7/id"]

    /// What find must answer, from every state.
    static func expected(_ session: RecordedSession, path: JSONPointer, judge: (JSONValue?) -> Bool, all: Bool) -> [(FindHit.Kind, Int64, JSONValue?)] {
        var hits: [(FindHit.Kind, Int64, JSONValue?)] = []
        var before = false
        for (seq, state) in session.states.enumerated() {
            let value = path.resolve(in: state)
            let now = judge(value)
            if now && (seq == 0 || !before) { hits.append((.starts, Int64(seq), value)) }
            if all, seq > 0, before, !now { hits.append((.stops, Int64(seq), value)) }
            before = now
        }
        return hits
    }

    @Test("every condition, with and without --all, on random sessions, matches a rebuild of every state", arguments: [UInt64(3), 11, 29])
    func matchesBruteForce(seed: UInt64) throws {
        let session = try RecordedSession.make(count: 400, seed: seed, policy: KeyframePolicy(maxEvents: 37), coalesceEvery: 23)
        let timeline = try Timeline(reader: try LogReader(path: session.path), session: session.sessionID)
        var nonEmpty = 0
        for pointer in Self.paths {
            let path = try JSONPointer(pointer)
            for testCase in try Self.cases() {
                for all in [false, true] {
                    let result = try timeline.find(path: path, condition: testCase.condition, all: all)
                    let got = result.hits.map { ($0.kind, $0.seq, $0.value) }
                    let want = Self.expected(session, path: path, judge: testCase.judge, all: all)
                    #expect(got.map(\.0) == want.map(\.0) && got.map(\.1) == want.map(\.1) && got.map(\.2) == want.map(\.2),
                            "\(pointer) \(testCase) all: \(all): got \(got.map(\.1)), want \(want.map(\.1))")
                    #expect(result.complete && result.scannedThrough == session.lastSeq)
                    if !want.isEmpty { nonEmpty += 1 }
                }
            }
            // --changed: every seq whose value differs from the one before.
            let changes = try timeline.find(path: path, condition: .changed).hits
            var expected: [(Int64, JSONValue?, JSONValue?)] = []
            for seq in 1..<session.states.count {
                let old = path.resolve(in: session.states[seq - 1]), new = path.resolve(in: session.states[seq])
                if old != new { expected.append((Int64(seq), old, new)) }
            }
            #expect(changes.map(\.seq) == expected.map(\.0), "\(pointer) changed")
            #expect(changes.map(\.previous) == expected.map(\.1) && changes.map(\.value) == expected.map(\.2))
            #expect(changes.allSatisfy { $0.kind == .changed })
        }
        // The sessions are not so tame that nothing is ever found.
        #expect(nonEmpty > 40)
    }

    @Test("--first stops at the first hit; a limit stops early and says so; a past deadline stops after the first 256 seqs")
    func stopsEarly() throws {
        let session = try RecordedSession.make(count: 300, seed: 5)
        let timeline = try Timeline(reader: try LogReader(path: session.path), session: session.sessionID)
        let path = try JSONPointer("/todos/0/done")
        let every = try timeline.find(path: path, condition: .changed)
        #expect(every.hits.count > 3)
        let first = try timeline.find(path: path, condition: .changed, first: true)
        #expect(first.hits == [every.hits[0]])
        #expect(first.complete)
        let limited = try timeline.find(path: path, condition: .changed, limit: 2)
        #expect(limited.hits == Array(every.hits.prefix(2)))
        #expect(!limited.complete && limited.stoppedBecause == "it reached 2 hits")
        // Late from the start (a query that waited in a busy server's queue): the first 256 seqs
        // are walked all the same, so it answers with what they hold and where it stopped.
        let late = try timeline.find(path: path, condition: .changed, deadline: ContinuousClock.now)
        #expect(!late.complete)
        #expect(late.stoppedBecause?.hasPrefix("it ran out of time at seq 256 of 300") == true, "\(late.stoppedBecause ?? "")")
        #expect(late.hits == every.hits.filter { $0.seq <= 256 })
    }

    @Test("a pattern too long or broken is one sentence")
    func badPatterns() {
        #expect(throws: FindQueryError("the pattern /(/ is not a regular expression find can run: a missing ')' at character 2")) { try FindPattern("(") }
        #expect(throws: FindQueryError("the pattern /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…/ is 300 bytes; at most 256 are allowed")) {
            try FindPattern(String(repeating: "a", count: 300))
        }
    }
}
