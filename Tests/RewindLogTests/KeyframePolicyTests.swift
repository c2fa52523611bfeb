import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Keyframe policy", .ownThreads)
struct KeyframePolicyTests {
    let policy = KeyframePolicy(maxEvents: 1_000, maxPatchBytesRatio: 0.5, minPatchBytes: 0)

    @Test("Due on the first event, after maxEvents events, or when patches outweigh half the state")
    func due() {
        #expect(policy.isKeyframeDue(eventsSinceKeyframe: nil, patchBytesSinceKeyframe: 0, stateBytes: 10))
        #expect(!policy.isKeyframeDue(eventsSinceKeyframe: 999, patchBytesSinceKeyframe: 10, stateBytes: 1_000_000))
        #expect(policy.isKeyframeDue(eventsSinceKeyframe: 1_000, patchBytesSinceKeyframe: 10, stateBytes: 1_000_000))
        #expect(!policy.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 500, stateBytes: 1_000))
        #expect(policy.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 501, stateBytes: 1_000))
    }

    @Test("The counter resets at each keyframe")
    func counter() {
        var counter = KeyframeCounter(policy: policy)
        var keyframes: [Int] = []
        for index in 0..<40 where counter.record(patchBytes: 60, stateBytes: 1_000) {
            keyframes.append(index)
        }
        // 60-byte patches against a 1,000-byte state: one keyframe every 9 events (9 × 60 > 500).
        #expect(keyframes == [0, 9, 18, 27, 36])

        var big = KeyframeCounter(policy: KeyframePolicy(maxEvents: 3))
        let due = (0..<8).map { _ in big.record(patchBytes: 1, stateBytes: 1_000_000) }
        #expect(due == [true, false, false, true, false, false, true, false])
    }

    @Test("Below the floor of patch bytes a small state takes no keyframe for their weight")
    func floor() {
        let floored = KeyframePolicy(maxEvents: 1_000, maxPatchBytesRatio: 0.5, minPatchBytes: 4_000)
        // Twice the state in patches, under the floor: not due; over both: due.
        #expect(!floored.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 2_000, stateBytes: 1_000))
        #expect(!floored.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 4_000, stateBytes: 1_000))
        #expect(floored.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 4_001, stateBytes: 1_000))
        // A big state still weighs its half: over the floor, under half the state.
        #expect(!floored.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 40_000, stateBytes: 100_000))
        #expect(floored.isKeyframeDue(eventsSinceKeyframe: 5, patchBytesSinceKeyframe: 50_001, stateBytes: 100_000))
        // maxEvents still makes one due below the floor.
        #expect(floored.isKeyframeDue(eventsSinceKeyframe: 1_000, patchBytesSinceKeyframe: 10, stateBytes: 1_000))

        // The default floor: 950-byte patches of a 920-byte state (the bench's server workload)
        // take a keyframe every 18 events, not every event.
        var counter = KeyframeCounter(policy: KeyframePolicy())
        let keyframes = (0..<60).filter { _ in counter.record(patchBytes: 950, stateBytes: 920) }
        #expect(keyframes == [0, 18, 36, 54])
    }
}
