import RewindJSON

/// A ``LogEvent`` as the bytes that go into its row: encoded on the caller's thread, so the
/// writer thread only binds and steps. The benchmarks' plain-SQLite baseline stores the same
/// rows.
package struct EncodedEvent: Sendable {
    package var sessionID: Int64
    package var seq: Int64
    package var at: Double
    package var actionType: String
    package var action: [UInt8]
    package var patch: [UInt8]
    package var inverse: [UInt8]
    package var hash: Int64
    package var durationNs: Int64
    package var cause: Int64?
    package var coalesced: Bool
    package var keyframe: [UInt8]?
    /// The JSON array of non-finite pointers, when there are any.
    package var nonFinite: [UInt8]?
    /// Where the action was sent, when known.
    package var site: SendSite?

    package init(_ event: LogEvent) throws(LogError) {
        guard case .array = event.patch, case .array = event.inverse else {
            throw LogError(kind: .invalidEvent(session: event.sessionID, seq: event.seq),
                           message: "its patch and inverse must be JSON arrays (RFC 6902)")
        }
        sessionID = event.sessionID
        seq = event.seq
        at = event.at.timeIntervalSince1970
        actionType = event.actionType
        action = event.action.serializedBytes(.compact)
        patch = event.patch.serializedBytes(.compact)
        inverse = event.inverse.serializedBytes(.compact)
        hash = Int64(bitPattern: event.hash)
        durationNs = event.durationNs
        cause = event.cause
        coalesced = event.coalesced
        keyframe = event.keyframe?.serializedBytes(.compact)
        site = event.site.map(SendSite.bounded)
        nonFinite = event.nonFinite.isEmpty ? nil
            : JSONValue.array(event.nonFinite.map { .string($0) }).serializedBytes(.compact)
    }
}

/// What one ``LogWriter/append(_:completion:)`` call handed over: written all together or not at all.
struct PendingBatch: Sendable {
    var events: [EncodedEvent]
    var completion: (@Sendable (Result<Void, LogError>) -> Void)?
}
