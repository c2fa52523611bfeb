import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import RewindReplay
import RewindTestSupport
import RewindSupport

@Suite("Timeline: states", .ownThreads)
struct TimelineStateTests {
    @Test("state(at:) is the recorded state at every seq of a session with many keyframes")
    func everySeq() throws {
        let session = try RecordedSession.make(count: 3_000, seed: 11, policy: KeyframePolicy(maxEvents: 100))
        let reader = try LogReader(path: session.path)
        let keyframes = try reader.keyframeSeqs(session: session.sessionID)
        #expect(keyframes.count >= 30, "the small policy stores a keyframe at least every 100 events")
        let timeline = try Timeline(reader: reader, session: session.sessionID, options: .uncached)
        for seq in 0...session.lastSeq {
            let state = try timeline.state(at: seq)
            #expect(state == session.states[Int(seq)], "seq \(seq)")
            if state != session.states[Int(seq)] { break }
        }
        #expect(try timeline.lastSeq() == 3_000)
    }

    @Test("without a cache, a state is rebuilt from the nearer keyframe, forward or back")
    func nearestKeyframe() throws {
        let session = try RecordedSession.make(count: 400, seed: 2, policy: KeyframePolicy(maxEvents: 100, maxPatchBytesRatio: 1_000))
        let timeline = try Timeline(path: session.path, session: "latest", options: .uncached)
        #expect(try LogReader(path: session.path).keyframeSeqs(session: session.sessionID) == [0, 100, 200, 300, 400])
        _ = try timeline.state(at: 130)
        #expect(timeline.lastPlan == RebuildPlan(start: .keyframe, from: 100, target: 130))
        _ = try timeline.state(at: 190)
        #expect(timeline.lastPlan == RebuildPlan(start: .keyframe, from: 200, target: 190))
        #expect(try timeline.state(at: 190) == session.states[190])
        #expect(timeline.cachedSeqs.isEmpty)
        // The keyframes found around 130 serve every seq between them, their own seqs included.
        for seq in [100, 200, 101, 199] as [Int64] {
            #expect(try timeline.state(at: seq) == session.states[Int(seq)])
        }
        #expect(timeline.lastPlan == RebuildPlan(start: .keyframe, from: 200, target: 199))
        _ = try timeline.state(at: 200)
        #expect(timeline.lastPlan == RebuildPlan(start: .keyframe, from: 200, target: 200))
        _ = try timeline.state(at: 305)
        #expect(timeline.lastPlan == RebuildPlan(start: .keyframe, from: 300, target: 305))
    }

    @Test("stepping from a cached neighbour applies one patch, forward or back")
    func steppingFromCache() throws {
        let session = try RecordedSession.make(count: 400, seed: 3, policy: KeyframePolicy(maxEvents: 100, maxPatchBytesRatio: 1_000))
        let timeline = try Timeline(path: session.path, session: "latest")
        #expect(try timeline.state(at: 150) == session.states[150])
        #expect(try timeline.state(at: 151) == session.states[151])
        #expect(timeline.lastPlan == RebuildPlan(start: .cached, from: 150, target: 151))
        #expect(try timeline.state(at: 149) == session.states[149])
        #expect(timeline.lastPlan == RebuildPlan(start: .cached, from: 150, target: 149))
        // Walking back through the whole range, one step at a time, from the cache each time.
        for seq in stride(from: Int64(148), through: 0, by: -1) {
            #expect(try timeline.state(at: seq) == session.states[Int(seq)])
            #expect(timeline.lastPlan?.steps ?? 99 <= 1)
        }
    }

    @Test("cached and backward rebuilds give what fresh rebuilds give, in random order", arguments: [UInt64(5), 6, 7])
    func randomOrder(seed: UInt64) throws {
        let session = try RecordedSession.make(count: 1_500, seed: seed, policy: KeyframePolicy(maxEvents: 200), coalesceEvery: 13)
        let reader = try LogReader(path: session.path)
        let cached = try Timeline(reader: reader, session: session.sessionID, options: Timeline.Options(cacheEntries: 8))
        let fresh = try Timeline(reader: reader, session: session.sessionID, options: .uncached)
        var random = SplitMix64(seed: seed)
        var seq: Int64 = 700
        var starts: Set<String> = []
        for _ in 0..<600 {
            // Mostly short hops (the cache's job), sometimes a jump anywhere.
            if Int.random(in: 0..<5, using: &random) == 0 {
                seq = Int64.random(in: 0...session.lastSeq, using: &random)
            } else {
                seq = min(session.lastSeq, max(0, seq + Int64.random(in: -12...12, using: &random)))
            }
            let state = try cached.state(at: seq)
            if let plan = cached.lastPlan { starts.insert("\(plan.start)-\(plan.from < plan.target ? "forward" : "back")") }
            #expect(state == session.states[Int(seq)], "seq \(seq)")
            #expect(state == (try fresh.state(at: seq)), "seq \(seq)")
            #expect(cached.cachedSeqs.count <= 8)
        }
        #expect(starts.isSuperset(of: ["cached-forward", "cached-back"]), "\(starts)")
    }

    @Test("the cache keeps at most its count and its approximate bytes, dropping the least recently used")
    func cacheBounds() throws {
        let session = try RecordedSession.make(count: 200, seed: 4)
        let stateBytes = session.states[100].serializedBytes().count
        let byCount = try Timeline(path: session.path, session: "1", options: Timeline.Options(cacheEntries: 3))
        for seq in [10, 20, 30] as [Int64] { _ = try byCount.state(at: seq) }
        _ = try byCount.state(at: 10)
        _ = try byCount.state(at: 40)
        #expect(byCount.cachedSeqs == [10, 30, 40])
        let byBytes = try Timeline(path: session.path, session: "1", options: Timeline.Options(cacheEntries: 100, cacheBytes: stateBytes * 5 / 2))
        for seq in [100, 110, 120, 130] as [Int64] { _ = try byBytes.state(at: seq) }
        #expect(byBytes.cachedSeqs == [120, 130])
        byBytes.clearCache()
        #expect(byBytes.cachedSeqs.isEmpty)
        #expect(try byBytes.state(at: 125) == session.states[125])
    }

    @Test("a seq that is not stored is a one-sentence error")
    func outOfRange() throws {
        let session = try RecordedSession.make(count: 10)
        let timeline = try Timeline(path: session.path, session: "latest")
        let beyond = #expect(throws: ReplayError.self) { try timeline.state(at: 11) }
        #expect(beyond == .seqOutOfRange(session: 1, seq: 11, lastSeq: 10))
        #expect(beyond?.description == "Session 1 has no seq 11: its last seq is 10.")
        let negative = #expect(throws: ReplayError.self) { try timeline.state(at: -1) }
        #expect(negative?.description == "Seq -1 is not a seq: seqs count from 0 (session 1 ends at 10).")
        let unknown = #expect(throws: ReplayError.self) { try Timeline(path: session.path, session: "9") }
        guard case .log(let error)? = unknown else { Issue.record("expected a log error"); return }
        #expect(error.kind == .unknownSession("9"))
        let missing = #expect(throws: ReplayError.self) { try Timeline(path: session.directory.path("none.db"), session: "latest") }
        #expect(missing?.description.hasPrefix("No Rewind log at ") == true)
    }

    @Test("an empty session has no states")
    func emptySession() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let id = try writer.openSession(uuid: "empty", app: "Todo", startedAt: Date())
        writer.close()
        let timeline = try Timeline(path: directory.path("log.db"), session: String(id))
        #expect(try timeline.lastSeq() == nil)
        #expect(throws: ReplayError.seqOutOfRange(session: id, seq: 0, lastSeq: nil)) { try timeline.state(at: 0) }
        #expect(try timeline.blame(path: .root).isEmpty)
        #expect(try timeline.verify().passed)
    }

    @Test("a live session: states appended after the timeline opened are found")
    func liveSession() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        defer { writer.close() }
        let id = try writer.openSession(uuid: "live", app: "Counter", startedAt: Date())
        var builder = EventBuilder(sessionID: id)
        writer.append([builder.initial(state: ["n": 0], at: Date())])
        try writer.flush()
        let timeline = try Timeline(path: directory.path("log.db"), session: "live")
        #expect(try timeline.state(at: 0) == ["n": 0])
        writer.append((1...5).map { builder.next(action: "inc", state: ["n": .number(JSONNumber($0))], at: Date()) })
        try writer.flush()
        #expect(try timeline.state(at: 5) == ["n": 5])
        #expect(try timeline.state(at: 3) == ["n": 3])
    }
}
