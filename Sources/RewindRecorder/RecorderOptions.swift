/// How a ``Recorder`` records.
public struct RecorderOptions: Sendable, Equatable {
    /// JSON Pointers replaced by `"<redacted>"` in every state and action before anything is
    /// written or sent (`/auth/token`, `/password`). A pointer that does not resolve in a value
    /// leaves it alone.
    public var redacting: [String]
    /// Member names whose values are replaced by `"<redacted>"` wherever they appear, in states
    /// and actions, at any depth (`password`, `token`, `apiKey`; compared without regard to case).
    ///
    /// Either way, a string found at a redacted pointer or key in any state recorded so far is a
    /// secret everywhere: the action that carries it (`.login(user:token:)`, encoded
    /// as `{"login": {"user": …, "token": …}}` or `{"login": {"_0": …, "_1": …}}`) has it replaced
    /// too, under whatever key, and a secret of 6 characters or more is cut out of longer strings.
    public var redactingKeys: [String]
    /// The most state snapshots waiting for the recorder's thread. When it is full, every action
    /// is still kept but the states in between are not recorded (their events are `coalesced`).
    public var queueCapacity: Int
    /// Whether the recorder's thread encodes only what changed since the state before (on by
    /// default). It keeps a copy of every part of the previous state with what it encoded to,
    /// and reuses that encoding for each part whose bits are the same; a 1 MB state with one
    /// changed element then costs about the changed element, not the megabyte.
    ///
    /// This relies on the state having value semantics, as time travel does anyway. A type that
    /// stores a class instance, a weak reference, an unsafe pointer or an existential anywhere
    /// in its properties is encoded afresh each time, and so is anything holding it. Turn this
    /// off only if a custom `encode(to:)` reads something the state's own bytes do not show: a
    /// global, or a class instance in an enum case that it never hands to the encoder.
    public var reusesUnchangedEncodings: Bool
    /// Whether the recorder keeps a crash journal for its session (``CrashJournal``; on by
    /// default, when a sink keeps events on the device). Off only for the benchmark that
    /// measures what it costs.
    package var keepsCrashJournal = true

    /// Options; 10,000 snapshots by default.
    public init(redacting: [String] = [], redactingKeys: [String] = [], queueCapacity: Int = 10_000,
                reusesUnchangedEncodings: Bool = true) {
        self.redacting = redacting
        self.redactingKeys = redactingKeys
        self.queueCapacity = max(1, queueCapacity)
        self.reusesUnchangedEncodings = reusesUnchangedEncodings
    }
}
