import RewindLog

/// What a session costs in the log, beside what storing every state whole would cost:
/// from ``Timeline/storage()``, for `rewind stats`.
public struct SessionStorage: Sendable, Equatable {
    /// The session.
    public var sessionID: Int64
    /// Events stored.
    public var events: Int
    /// Keyframes stored.
    public var keyframes: Int
    /// Bytes of JSON text the session stores: its events' actions, patches and inverses, and its
    /// keyframes (SQLite's page and index overhead comes on top).
    public var payloadBytes: Int64
    /// The estimated sum over events of the state's size (compact JSON): each state's size is
    /// interpolated linearly between the stored sizes of the keyframes around it, and held at the
    /// last keyframe's size after it.
    public var wholeStateBytes: Int64

    /// Makes a figure set.
    public init(sessionID: Int64, events: Int, keyframes: Int, payloadBytes: Int64, wholeStateBytes: Int64) {
        self.sessionID = sessionID
        self.events = events
        self.keyframes = keyframes
        self.payloadBytes = payloadBytes
        self.wholeStateBytes = wholeStateBytes
    }

    /// The estimated sum of state sizes for `events` events, from the keyframes' `(seq, bytes)`
    /// in ascending seq order.
    public static func estimatedWholeStateBytes(events: Int, keyframes: [(seq: Int64, bytes: Int64)]) -> Int64 {
        let end = Int64(events)
        var total: Int64 = 0
        for (index, keyframe) in keyframes.enumerated() where keyframe.seq < end {
            let next = index + 1 < keyframes.count ? keyframes[index + 1] : nil
            let segmentEnd = min(next?.seq ?? end, end)
            let count = segmentEnd - keyframe.seq
            guard count > 0 else { continue }
            let a = keyframe.bytes
            let b = next?.bytes ?? a
            let span = (next?.seq ?? end) - keyframe.seq
            // Σ over i in 0..<count of a + (b - a)·i/span.
            total += count * a + (b - a) * (count * (count - 1) / 2) / max(span, 1)
        }
        return total
    }
}

extension Timeline {
    /// The session's event and keyframe counts, the bytes it stores and the estimated bytes of its
    /// states stored whole. Reads every keyframe's size, not its text.
    public func storage() throws(ReplayError) -> SessionStorage {
        let session = sessionID
        return try readingLog { () throws(LogError) in
            let events = Int(try reader.lastSeq(session: session).map { $0 + 1 } ?? 0)
            let keyframes = try reader.keyframeSizes(session: session)
            let payload = try reader.payloadBytes(session: session)
            return SessionStorage(
                sessionID: session, events: events, keyframes: keyframes.count,
                payloadBytes: payload.events + payload.keyframes,
                wholeStateBytes: SessionStorage.estimatedWholeStateBytes(events: events, keyframes: keyframes))
        }
    }
}
