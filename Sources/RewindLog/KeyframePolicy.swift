/// When to store a full state (a keyframe) beside an event.
///
/// A keyframe is due on a session's first event, once `maxEvents` events have passed since the
/// last one, or once the patches written since the last keyframe weigh more than
/// `maxPatchBytesRatio` times the state and more than `minPatchBytes`: rebuilding any state then
/// reads one keyframe and at most `maxEvents` patches weighing about the larger of the two, and
/// keyframes never cost more storage than the patches they save.
///
/// The floor is for small states: with half the state alone, a state of 1 KB whose every action
/// replaces most of it stored a keyframe with every event, twice the bytes of the patches, for a
/// rebuild that saves reading a few kilobytes (issue 42). With the floor such a session stores a
/// keyframe every `minPatchBytes` of patches (16 KiB: every 17 events of 950-byte patches), and a
/// state is still rebuilt from at most 16 KiB of patches after its keyframe.
///
/// ```swift
/// var counter = KeyframeCounter(policy: KeyframePolicy())
/// for (patchBytes, stateBytes) in changes {
///     let storeKeyframe = counter.record(patchBytes: patchBytes, stateBytes: stateBytes)
/// }
/// ```
public struct KeyframePolicy: Sendable, Equatable {
    /// The most events between two keyframes.
    public var maxEvents: Int
    /// The patch bytes since the last keyframe, relative to the state's size, that make one due.
    public var maxPatchBytesRatio: Double
    /// The patch bytes since the last keyframe below which none is due for their weight (only
    /// `maxEvents` makes one due then).
    public var minPatchBytes: Int

    /// A policy; the defaults are the house plan's (1,000 events, half the state) with a floor of
    /// 16 KiB of patches.
    public init(maxEvents: Int = 1_000, maxPatchBytesRatio: Double = 0.5, minPatchBytes: Int = 16_384) {
        self.maxEvents = max(1, maxEvents)
        self.maxPatchBytesRatio = maxPatchBytesRatio
        self.minPatchBytes = max(0, minPatchBytes)
    }

    /// Whether the event being written should carry a keyframe.
    ///
    /// - Parameters:
    ///   - eventsSinceKeyframe: events since the last keyframe, counting this one; `nil` when the
    ///     session has no keyframe yet.
    ///   - patchBytesSinceKeyframe: bytes of the forward patches since the last keyframe,
    ///     counting this event's.
    ///   - stateBytes: the size of the state after this event, compact JSON.
    public func isKeyframeDue(eventsSinceKeyframe: Int?, patchBytesSinceKeyframe: Int, stateBytes: Int) -> Bool {
        guard let eventsSinceKeyframe else { return true }
        if eventsSinceKeyframe >= maxEvents { return true }
        return patchBytesSinceKeyframe > minPatchBytes
            && Double(patchBytesSinceKeyframe) > maxPatchBytesRatio * Double(stateBytes)
    }
}

/// Keeps the running totals a ``KeyframePolicy`` needs for one session.
public struct KeyframeCounter: Sendable, Equatable {
    /// The policy applied.
    public var policy: KeyframePolicy
    /// Events since the last keyframe (`nil` before the first).
    public private(set) var eventsSinceKeyframe: Int?
    /// Forward patch bytes since the last keyframe.
    public private(set) var patchBytesSinceKeyframe = 0

    /// A counter for a session that has no keyframe yet.
    public init(policy: KeyframePolicy = KeyframePolicy()) {
        self.policy = policy
    }

    /// Counts one event and says whether it should carry a keyframe; when it should, the totals
    /// start again from it.
    public mutating func record(patchBytes: Int, stateBytes: Int) -> Bool {
        let events = eventsSinceKeyframe.map { $0 + 1 }
        let bytes = patchBytesSinceKeyframe + patchBytes
        if policy.isKeyframeDue(eventsSinceKeyframe: events, patchBytesSinceKeyframe: bytes, stateBytes: stateBytes) {
            eventsSinceKeyframe = 0
            patchBytesSinceKeyframe = 0
            return true
        }
        eventsSinceKeyframe = events
        patchBytesSinceKeyframe = bytes
        return false
    }
}
