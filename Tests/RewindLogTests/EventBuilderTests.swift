import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("EventBuilder", .ownThreads)
struct EventBuilderTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("seq 0 is the initial state, stored as a keyframe with an empty patch")
    func initialState() {
        var builder = EventBuilder(sessionID: 7)
        let state: JSONValue = ["count": 0, "items": []]
        let event = builder.initial(state: state, at: t0)
        #expect(event.seq == 0)
        #expect(event.sessionID == 7)
        #expect(event.keyframe == state)
        #expect(event.patch == [])
        #expect(event.actionType == "@@INIT")
        #expect(event.hash == state.stableHash)
        #expect(builder.nextSeq == 1)
    }

    @Test("each event's patch takes the previous state to the new one, and its inverse takes it back")
    func patchesChainStates() throws {
        var builder = EventBuilder(sessionID: 1)
        var states: [JSONValue] = [["count": 0, "todos": []]]
        _ = builder.initial(state: states[0], at: t0)
        var events: [LogEvent] = []
        for k in 1...20 {
            var next = states.last!.objectValue!
            next["count"] = .number(JSONNumber(k))
            var todos = next["todos"]!.arrayValue!
            todos.append(["id": .number(JSONNumber(k)), "title": .string("task \(k)")])
            next["todos"] = .array(todos)
            states.append(.object(next))
            events.append(builder.next(action: ["type": "add", "n": .number(JSONNumber(k))], state: states.last!, at: t0, durationNs: 1_000, cause: Int64(k - 1)))
        }
        for (k, event) in events.enumerated() {
            #expect(event.seq == Int64(k + 1))
            #expect(event.cause == Int64(k))
            #expect(event.durationNs == 1_000)
            #expect(event.actionType == "add")
            let forward = try JSONPatch(json: event.patch)
            let inverse = try JSONPatch(json: event.inverse)
            #expect(try forward.apply(to: states[k]) == states[k + 1])
            #expect(try inverse.apply(to: states[k + 1]) == states[k])
            #expect(event.hash == states[k + 1].stableHash)
        }
    }

    @Test("a keyframe is due after maxEvents events")
    func keyframeEveryMaxEvents() {
        var builder = EventBuilder(sessionID: 1, policy: KeyframePolicy(maxEvents: 10, maxPatchBytesRatio: 1_000))
        let big: JSONValue = ["payload": .string(String(repeating: "x", count: 10_000)), "n": 0]
        _ = builder.initial(state: big, at: t0)
        var keyframeSeqs: [Int64] = []
        for k in 1...35 {
            var object = big.objectValue!
            object["n"] = .number(JSONNumber(k))
            let event = builder.next(action: "tick", state: .object(object), at: t0)
            if event.keyframe != nil { keyframeSeqs.append(event.seq) }
        }
        #expect(keyframeSeqs == [10, 20, 30])
    }

    @Test("a keyframe is due once patches outweigh half the state")
    func keyframeWhenPatchesOutweighState() {
        var builder = EventBuilder(sessionID: 1, policy: KeyframePolicy(minPatchBytes: 0))
        // A small state whose every change is a large share of it (no floor of patch bytes:
        // KeyframePolicyTests checks the floor).
        _ = builder.initial(state: ["text": "a"], at: t0)
        var keyframes = 0
        for k in 1...10 {
            let event = builder.next(action: "edit", state: ["text": .string(String(repeating: "b", count: k))], at: t0)
            if event.keyframe != nil { keyframes += 1 }
        }
        #expect(keyframes >= 5)
        // A large state with tiny changes gets no keyframe before maxEvents.
        var large = EventBuilder(sessionID: 2)
        let blob: JSONValue = ["blob": .string(String(repeating: "z", count: 100_000)), "n": 0]
        _ = large.initial(state: blob, at: t0)
        var largeKeyframes = 0
        for k in 1...500 {
            var object = blob.objectValue!
            object["n"] = .number(JSONNumber(k))
            if large.next(action: "tick", state: .object(object), at: t0).keyframe != nil { largeKeyframes += 1 }
        }
        #expect(largeKeyframes == 0)
    }

    @Test("a skipped action changes nothing and keeps the last recorded state's hash")
    func skippedActions() throws {
        var builder = EventBuilder(sessionID: 1)
        _ = builder.initial(state: ["n": 0], at: t0)
        let one = builder.next(action: "inc", state: ["n": 1], at: t0)
        let skipped = builder.skipped(action: "inc", at: t0, cause: 1)
        let after = builder.next(action: "inc", state: ["n": 3], at: t0, coalesced: false)
        #expect(skipped.coalesced)
        #expect(skipped.patch == [])
        #expect(skipped.hash == one.hash)
        #expect(skipped.seq == 2)
        #expect(after.seq == 3)
        #expect(try JSONPatch(json: after.patch).apply(to: ["n": 1]) == ["n": 3])
    }

    @Test("a resumed builder continues the seqs and stores a keyframe first")
    func resuming() {
        var builder = EventBuilder(resuming: 4, nextSeq: 12, state: ["n": 11])
        let event = builder.next(action: "inc", state: ["n": 12], at: t0)
        #expect(event.seq == 12)
        #expect(event.keyframe == ["n": 12])
        #expect(event.patch == [["op": "replace", "path": "/n", "value": 12]])
    }
}
