import Foundation
import RewindJSON
import RewindLog
import Testing
@testable import Rewind
@testable import RewindRecorder
import RewindTestSupport

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
}
