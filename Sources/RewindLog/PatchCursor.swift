import RewindJSON

/// One step of a replay: the change an event made and how to undo it.
public struct PatchStep: Sendable, Equatable {
    /// The event's seq.
    public var seq: Int64
    /// The RFC 6902 patch from state `seq - 1` to state `seq`.
    public var patch: JSONValue
    /// The RFC 6902 patch from state `seq` back to state `seq - 1`.
    public var inverse: JSONValue
    /// The stable hash of state `seq`.
    public var hash: UInt64

    /// Makes a step.
    public init(seq: Int64, patch: JSONValue, inverse: JSONValue, hash: UInt64) {
        self.seq = seq
        self.patch = patch
        self.inverse = inverse
        self.hash = hash
    }
}

/// Streams patches from one query, one row at a time, so a replay over many events never holds
/// them all. It keeps a read transaction open until it is exhausted or released.
public final class PatchCursor {
    private let statement: any SQLRows
    private let path: String
    private var done = false

    init(statement: any SQLRows, path: String) {
        self.statement = statement
        self.path = path
    }

    /// The next step, or `nil` at the end.
    public func next() throws(LogError) -> PatchStep? {
        guard !done else { return nil }
        guard try statement.step() else {
            done = true
            statement.reset()
            return nil
        }
        return PatchStep(
            seq: statement.int64(0),
            patch: try RowDecoder.json(statement, 1, column: "events.patch", path: path),
            inverse: try RowDecoder.json(statement, 2, column: "events.inverse", path: path),
            hash: UInt64(bitPattern: statement.int64(3)))
    }

    /// Every remaining step.
    public func all() throws(LogError) -> [PatchStep] {
        var steps: [PatchStep] = []
        while let step = try next() { steps.append(step) }
        return steps
    }
}
