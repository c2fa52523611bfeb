/// Why a recorder stopped recording (or skipped a state): one sentence in ``description``.
///
/// The app is never stopped: the store goes on without recording, and the message is written
/// once to standard error.
public struct RecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// A redaction path is not a JSON Pointer: recording never started, so nothing leaked.
        case invalidRedactionPath(String)
        /// A sink failed (the log file cannot be opened or written); recording stopped.
        case sink
        /// A state could not be encoded; its event was recorded as skipped.
        case encoding(pointer: String)
        /// Tags that cannot be tags (``RecordingMetadata/tags``) were left out of the session;
        /// the recording goes on with the others.
        case tagsLeftOut
    }

    /// What went wrong.
    public var kind: Kind
    /// The underlying error's description.
    public var message: String

    /// Makes an error.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// A state was skipped; the recording went on.
    var isEncodingSkip: Bool {
        if case .encoding = kind { return true }
        return false
    }

    /// The recording went on: a state was skipped, or tags were left out.
    var isNonFatal: Bool { isEncodingSkip || kind == .tagsLeftOut }

    /// One sentence saying what failed.
    public var description: String {
        switch kind {
        case .invalidRedactionPath(let path):
            return "rewind: recording not started: redaction path '\(path)' is not a JSON Pointer: \(message)"
        case .sink:
            return "rewind: recording stopped: \(message)"
        case .tagsLeftOut:
            return "rewind: \(message); the session is recorded without them"
        case .encoding(let pointer):
            return "rewind: a state could not be encoded at '\(pointer)' and was not recorded: \(message)"
        }
    }
}
