import Foundation
import RewindJSON
import RewindLog
import RewindWire
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

@Suite("Unacknowledged events", .ownThreads)
struct UnackedEventsTests {
    /// Events 0…count over a counter state, built the way the recorder builds them.
    private func events(_ count: Int) -> (events: [LogEvent], states: [JSONValue]) {
        var builder = EventBuilder(sessionID: 0)
        var states: [JSONValue] = [["count": 0]]
        var events = [builder.initial(state: states[0], at: Date())]
        for index in 1...count {
            let state: JSONValue = ["count": .number(JSONNumber(index))]
            events.append(builder.next(action: ["type": "add"], state: state, at: Date()))
            states.append(state)
        }
        return (events, states)
    }

    @Test("within the bound every event keeps its patch; acks forget events")
    func withinBound() {
        var unacked = UnackedEvents(capacity: 10)
        for event in events(5).events { unacked.append(event) }
        #expect(unacked.count == 6)
        #expect(unacked.droppedStates == 0)
        unacked.acknowledge(through: 3)
        #expect(unacked.count == 2)
        #expect(unacked.ackedThrough == 3)
        #expect(unacked.lastSeq == 5)
        unacked.acknowledge(through: 2)
        #expect(unacked.ackedThrough == 3)
    }

    @Test("past the bound the older states are dropped, seq 0 and the actions are kept, the newest carries the whole state")
    func pastBound() throws {
        var unacked = UnackedEvents(capacity: 4)
        let (built, states) = events(10)
        for event in built { unacked.append(event) }
        #expect(unacked.count == 11)
        #expect(unacked.droppedStates > 0)
        let entries = unacked.entries[unacked.startIndex...]
        #expect(entries.map(\.seq) == Array(0...10))
        guard case .keyframe(let first) = try #require(entries.first).body else {
            Issue.record("seq 0 lost its keyframe")
            return
        }
        #expect(first == states[0])
        let stateful = entries.filter { if case .dropped = $0.body { false } else { true } }
        #expect(stateful.count <= 4)
        // The last keyframe holds the state its event produced.
        let lastKeyframe = try #require(entries.last { if case .keyframe = $0.body { true } else { false } })
        if case .keyframe(let state) = lastKeyframe.body { #expect(state == states[Int(lastKeyframe.seq)]) }
        // Capacity 4: dropped at seqs 4, 7 and 10, each time all but seq 0 and the newest.
        #expect(lastKeyframe.seq == 10)
        #expect(entries.filter { if case .dropped = $0.body { true } else { false } }.map(\.seq) == Array(1...9))
        #expect(entries.dropFirst().allSatisfy { $0.coalesced })
        #expect(entries.dropFirst().allSatisfy { $0.action == ["type": "add"] })
    }

    /// Events over `states` (seq 0 first), built the way the recorder builds them.
    private func events(over states: [JSONValue]) -> [LogEvent] {
        var builder = EventBuilder(sessionID: 0)
        var events = [builder.initial(state: states[0], at: Date())]
        for state in states.dropFirst() { events.append(builder.next(action: ["type": "set"], state: state, at: Date())) }
        return events
    }

    private func blob(_ bytes: Int, count: Int) -> JSONValue {
        ["count": .number(JSONNumber(count)), "blob": .string(String(repeating: "x", count: bytes))]
    }

    @Test("each entry knows at most how large its state is: measured at keyframes, grown by patches, measured again past the limit")
    func stateSizeBounds() throws {
        var unacked = UnackedEvents(capacity: 100)
        unacked.limits = WireLimits(maxMessage: 1 << 20, maxState: 10_000)
        let states = [blob(100, count: 0), blob(100, count: 1), blob(5_000, count: 2), blob(5_000, count: 3), blob(20_000, count: 4), blob(10, count: 5)]
        for event in events(over: states) { unacked.append(event) }
        let entries = Array(unacked.entries[unacked.startIndex...])
        for (entry, state) in zip(entries, states) {
            let bound = try #require(entry.stateBytes)
            #expect(bound >= StateSize.of(state), "seq \(entry.seq)")
            if entry.stateBytesExact { #expect(bound == StateSize.of(state), "seq \(entry.seq)") }
        }
        #expect(entries[0].stateBytesExact)
        // Past the limit the state is measured: seq 4 really is over, seq 5 really is not.
        #expect(entries[4].stateBytesExact)
        #expect(entries[5].stateBytesExact)
        #expect(unacked.stateRefusal(at: unacked.startIndex + 4) != nil)
        #expect(unacked.stateRefusal(at: unacked.startIndex + 5) == nil)
        #expect(unacked.stateRefusal(at: unacked.startIndex + 3) == nil)
    }

    @Test("a state over the limit is withheld: it and the entries after it go without their patches and the newest goes whole; a withheld newest makes the next event go whole")
    func withholding() throws {
        var unacked = UnackedEvents(capacity: 100)
        unacked.limits = WireLimits(maxMessage: 1 << 20, maxState: 10_000)
        let states = [blob(10, count: 0), blob(20_000, count: 1), blob(20_000, count: 2), blob(10, count: 3), blob(10, count: 4)]
        let built = events(over: states)
        for event in built[0...4] { unacked.append(event) }
        let first = unacked.startIndex
        let found = unacked.stateRefusal(at: first + 1)
        let refusal = try #require(found)
        #expect(refusal.seq == 1)
        guard case .stateTooLarge(let bytes, let exact, let limit) = refusal.reason else {
            Issue.record("\(refusal.reason)")
            return
        }
        #expect(bytes == StateSize.of(states[1]) && exact && limit == 10_000)
        let sentence = refusal.sentence(app: "Blobs", session: "6f0c2a1e-0000")
        #expect(sentence.contains("--max-state") && sentence.contains("9.8 KiB") && sentence.contains("is \(StateSize.text(bytes))"), "\(sentence)")
        unacked.withhold(from: first + 1)
        let entries = Array(unacked.entries[first...])
        #expect(entries.map { if case .dropped = $0.body { true } else { false } } == [false, true, true, true, false])
        guard case .keyframe(let whole) = entries[4].body else {
            Issue.record("the newest does not carry the whole state")
            return
        }
        #expect(whole == states[4])
        #expect(entries[1...].allSatisfy { $0.coalesced })
        #expect(unacked.stateRefusal(at: first + 4) == nil)
        #expect(unacked.withheldStates == 3)

        // The newest itself over the limit: the next event appended carries the whole state.
        var again = UnackedEvents(capacity: 100)
        again.limits = unacked.limits
        let over = events(over: [blob(10, count: 0), blob(20_000, count: 1), blob(10, count: 2), blob(10, count: 3)])
        for event in over[0...1] { again.append(event) }
        #expect(again.stateRefusal(at: again.startIndex + 1) != nil)
        again.withhold(from: again.startIndex + 1)
        again.append(over[2])
        again.append(over[3])
        let after = Array(again.entries[again.startIndex...])
        guard case .keyframe(let state) = after[2].body, case .patch = after[3].body else {
            Issue.record("\(after.map(\.body))")
            return
        }
        #expect(state == blob(10, count: 2))
        #expect(after[2].coalesced && !after[3].coalesced)
    }

    @Test("a server that lacks what another acknowledged: the forgotten events go back in front from the local log's copy, and the server's nextSeq is the new start")
    func restoresWhatAnotherServerAcknowledged() throws {
        let (built, _) = events(12)
        var unacked = UnackedEvents(capacity: 100)
        for event in built { unacked.append(event) }
        unacked.acknowledge(through: 7)
        #expect(unacked.firstHeldSeq == 8)
        // The local log's copy must run from at or before nextSeq, without a hole, to seq 7.
        let limits = unacked.limits
        #expect(UnackedEvents.restoring(Array(built[0...5]), from: 3, before: 8, limits: limits) == nil)
        #expect(UnackedEvents.restoring(Array(built[4...7]), from: 3, before: 8, limits: limits) == nil)
        #expect(UnackedEvents.restoring(Array(built[0...3]) + Array(built[5...7]), from: 3, before: 8, limits: limits) == nil)
        // Made for another gap (the link moved on meanwhile): refused, nothing changes.
        let stale = try #require(UnackedEvents.restoring(Array(built[0...9]), from: 3, before: 6, limits: limits))
        let refused = unacked.restore(stale)
        #expect(!refused)
        #expect(unacked.firstHeldSeq == 8 && unacked.ackedThrough == 7)
        // Covered: the server holds 0…2, and 3…12 are pending again, each with its own patch.
        let restored = try #require(UnackedEvents.restoring(Array(built[0...9]), from: 3, before: 8, limits: limits))
        let covered = unacked.restore(restored)
        #expect(covered)
        #expect(unacked.ackedThrough == 2)
        #expect(unacked.ackedHash == built[2].hash)
        let entries = Array(unacked.entries[unacked.startIndex...])
        #expect(entries.map(\.seq) == Array(3...12))
        #expect(entries.allSatisfy { if case .patch = $0.body { !$0.coalesced } else { false } })
        #expect(zip(entries, built[3...]).allSatisfy { $0.hash == $1.hash && $0.action == $1.action })
        // A server with nothing: from seq 0, whose keyframe goes first.
        var fresh = UnackedEvents(capacity: 100)
        for event in built { fresh.append(event) }
        fresh.acknowledge(through: 12)
        let whole = fresh.restore(try #require(UnackedEvents.restoring(built, from: 0, before: 13, limits: limits)))
        #expect(whole)
        #expect(fresh.ackedThrough == -1 && fresh.ackedHash == nil)
        guard case .keyframe = try #require(fresh.entries[fresh.startIndex...].first).body else {
            Issue.record("seq 0 does not carry its state")
            return
        }
        #expect(fresh.count == 13)
        // Past the bound, the older states give way as for any unacknowledged events.
        var bounded = UnackedEvents(capacity: 4)
        for event in built { bounded.append(event) }
        bounded.acknowledge(through: 12)
        let bound = bounded.restore(try #require(UnackedEvents.restoring(built, from: 0, before: 13, limits: limits)))
        #expect(bound)
        let kept = bounded.entries[bounded.startIndex...]
        #expect(kept.count == 13)
        #expect(kept.filter { if case .dropped = $0.body { false } else { true } }.count <= 4)
    }
}
