/// Why a session cannot be exported: its stored changes do not rebuild its states.
///
/// ```swift
/// print(error)  // seq 12 of session 3 cannot be rebuilt: its patch does not apply …; `rewind verify 3` tells more
/// ```
public struct ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session's id.
    public var session: Int64
    /// The seq whose state cannot be rebuilt.
    public var seq: Int64
    /// Why.
    public var message: String

    /// Makes an error.
    public init(session: Int64, seq: Int64, message: String) {
        self.session = session
        self.seq = seq
        self.message = message
    }

    /// One sentence naming the session and seq.
    public var description: String {
        "seq \(seq) of session \(session) cannot be rebuilt: \(message); `rewind verify \(session)` tells more"
    }
}
