/// Why a store refused to start a replay or a branch (``Store/replay(_:from:to:pace:)``,
/// ``Store/branch(_:skip:edits:startedAt:)``): a range outside the recording, a replay already
/// running, a branch of a store that does not record. (RewindReplay's `ReplayError` is another
/// thing: why a log could not be replayed.)
public struct StoreReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence saying why.
    public var description: String

    /// Makes a refusal.
    public init(_ description: String) {
        self.description = description
    }
}
