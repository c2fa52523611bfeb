import RewindLog

/// Why a replay could not answer, in one sentence (``description``).
///
/// ```swift
/// do { _ = try timeline.state(at: 99) }
/// catch { print(error) }   // Session 1 has no seq 99: its last seq is 41.
/// ```
public enum ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The log could not be read (missing file, unknown session, SQLite error, unreadable JSON).
    case log(LogError)
    /// `seq` is not stored in the session: negative, or past `lastSeq` (`nil` when the session is empty).
    case seqOutOfRange(session: Int64, seq: Int64, lastSeq: Int64?)
    /// The stored events cannot rebuild state `seq`: `reason` says why; `rewind verify` finds the first fault.
    case brokenChain(session: Int64, seq: Int64, reason: String)

    /// One sentence that says what failed.
    public var description: String {
        switch self {
        case .log(let error):
            return error.description
        case .seqOutOfRange(let session, let seq, let lastSeq):
            guard let lastSeq else { return "Session \(session) has no events yet, so it has no seq \(seq)." }
            if seq < 0 { return "Seq \(seq) is not a seq: seqs count from 0 (session \(session) ends at \(lastSeq))." }
            return "Session \(session) has no seq \(seq): its last seq is \(lastSeq)."
        case .brokenChain(let session, let seq, let reason):
            return "Session \(session) cannot be rebuilt at seq \(seq): \(reason); run `rewind verify \(session)`."
        }
    }
}

/// Runs `body`, turning a log error into ``ReplayError/log(_:)``.
@inline(__always)
func readingLog<T>(_ body: () throws(LogError) -> T) throws(ReplayError) -> T {
    do {
        return try body()
    } catch {
        throw .log(error)
    }
}
