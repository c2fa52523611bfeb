import RewindWire

/// Packs the events one send goes through into frames: one event waiting goes at once as an
/// `event` frame; several go as `events` batches of at most ``WireEventBatch/maxEvents`` events
/// and ``byteBound`` bytes, so a catch-up or a burst costs the server one wake-up per batch rather
/// than per event. An event too large for a batch goes alone as `event`; a batch left with one
/// event goes as `event` too.
struct EventFrames {
    /// The most bytes of one batch frame: ``WireEventBatch/maxBytes``, or the server's largest
    /// message when that is smaller.
    let byteBound: Int
    private var pending: [[UInt8]] = []
    private var pendingBytes = 0
    /// Frames made, not yet taken.
    private var ready: [[UInt8]] = []

    init(maxMessage: Int) {
        byteBound = min(WireEventBatch.maxBytes, maxMessage)
    }

    /// Adds one event, serialized without its `type` (compact `{"seq":…}`).
    mutating func add(_ members: [UInt8]) {
        if !pending.isEmpty,
           pending.count == WireEventBatch.maxEvents
            || WireEventBatch.frameSize(memberBytes: pendingBytes + members.count, count: pending.count + 1) > byteBound {
            flush()
        }
        if WireEventBatch.frameSize(memberBytes: members.count, count: 1) > byteBound {
            // Alone even in a batch of its own: it goes as `event` (the caller checked it fits
            // the server's largest message).
            ready.append(WireEventBatch.singleFrame(members: members))
            return
        }
        pending.append(members)
        pendingBytes += members.count
    }

    /// Ends the current batch (a batch of one goes as `event`).
    mutating func flush() {
        switch pending.count {
        case 0: return
        case 1: ready.append(WireEventBatch.singleFrame(members: pending[0]))
        default: ready.append(WireEventBatch.frame(members: pending))
        }
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
    }

    /// The frames made so far, in order; they are handed over once.
    mutating func take() -> [[UInt8]] {
        defer { ready.removeAll(keepingCapacity: true) }
        return ready
    }
}
