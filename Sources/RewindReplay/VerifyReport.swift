/// What ``Timeline/verify(progress:)`` found in one session.
public struct VerifyReport: Sendable, Equatable {
    /// The session checked.
    public var sessionID: Int64
    /// Events checked (all of them when it passed; up to the problem otherwise).
    public var eventsChecked: Int
    /// Keyframes compared with the state the patches give.
    public var keyframesChecked: Int
    /// The first problem by seq, or `nil` when the session is sound.
    public var problem: VerifyProblem?

    /// `true` when no problem was found.
    public var passed: Bool { problem == nil }

    /// Makes a report.
    public init(sessionID: Int64, eventsChecked: Int, keyframesChecked: Int, problem: VerifyProblem?) {
        self.sessionID = sessionID
        self.eventsChecked = eventsChecked
        self.keyframesChecked = keyframesChecked
        self.problem = problem
    }
}

/// The first thing wrong with a session's record, at a seq: ``description`` is one sentence
/// such as `seq 1203: hash does not match the state the patches give`.
public struct VerifyProblem: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// No event is stored at the seq, although later ones are (or seqs do not start at 0).
        case missingSeq
        /// A stored seq repeats or goes backwards.
        case unexpectedSeq
        /// Seq 0 has no keyframe, so there is no initial state to replay from.
        case missingInitialKeyframe
        /// A stored JSON text (patch, inverse, keyframe) cannot be parsed.
        case unreadable
        /// The patch or its inverse is JSON but not an RFC 6902 patch.
        case invalidPatch
        /// The patch does not apply to the state before the event.
        case patchDoesNotApply
        /// The inverse patch does not take the state after the event back to the one before it.
        case inverseMismatch
        /// The stored hash is not the hash of the state the patches give.
        case hashMismatch
        /// The stored keyframe is not the state the patches give.
        case keyframeMismatch
        /// A keyframe is stored at a seq that has no event.
        case orphanKeyframe
    }

    /// The seq the problem is at.
    public var seq: Int64
    /// What is wrong.
    public var kind: Kind
    /// The rest of the sentence after `seq N: `.
    public var message: String

    /// Makes a problem.
    public init(seq: Int64, kind: Kind, message: String) {
        self.seq = seq
        self.kind = kind
        self.message = message
    }

    /// `seq N: message`.
    public var description: String { "seq \(seq): \(message)" }
}

/// How far ``Timeline/verify(progress:)`` has come: `checked` of `total` events.
public struct VerifyProgress: Sendable, Equatable {
    /// Events checked so far.
    public var checked: Int
    /// Events the session holds.
    public var total: Int

    /// Makes a progress figure.
    public init(checked: Int, total: Int) {
        self.checked = checked
        self.total = total
    }
}
