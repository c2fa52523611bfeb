import RewindJSON
import RewindLog

/// Where a re-run first differed from the recording.
public struct ReplayMismatch: Sendable, Equatable, CustomStringConvertible {
    /// The seq whose state differs.
    public var seq: Int64
    /// The action at that seq, as recorded.
    public var action: JSONValue
    /// The recorded state.
    public var expected: JSONValue
    /// The state the reducer produced.
    public var actual: JSONValue
    /// What differs, from the recorded state to the produced one.
    public var changes: [JSONChange]

    /// One line per change, after the seq and the action: where, then the recorded value and
    /// the value the reducer produced on replay (`absent` where one side has nothing).
    ///
    /// ```
    /// state differs at seq 8 after {"add":{"_0":2}}:
    ///   /count  recorded: 15  replayed: 16
    /// ```
    public var description: String {
        "state differs at seq \(seq) after \(action.serialized()):\n" + changes.map { change in
            let place = change.path.isRoot ? "(the whole state)" : change.path.description
            let recorded = change.oldValue?.serialized() ?? "absent"
            let replayed = change.newValue?.serialized() ?? "absent"
            return "  \(place)  recorded: \(recorded)  replayed: \(replayed)"
        }.joined(separator: "\n")
    }
}

/// Re-runs a recorded session through a reducer and reports the first seq where the state
/// differs from the recorded one: a recorded bug becomes a regression test.
///
/// ```swift
/// @Test func checkoutBugStaysFixed() throws {
///     let recording = try Recording.load(fromLog: fixturePath)
///     let mismatch = try ReplayVerifier(reducer: appReducer).firstMismatch(in: recording)
///     #expect(mismatch == nil, "\(mismatch!)")
/// }
/// ```
///
/// States are compared as JSON, after the recording's redactions; effects are not run (the
/// actions they sent are in the recording). A step whose state was coalesced away is checked at
/// the next recorded one.
public struct ReplayVerifier<State: Codable, Action: Decodable> {
    let reduce: (inout State, Action) -> Void

    /// A verifier for any store's reducer, given as one step: change `state` for `action`. For a
    /// ReSwift reducer `(Action, State?) -> State`, write `{ state, action in state = reducer(action, state) }`;
    /// for a TCA reducer, `{ state, action in _ = reducer.reduce(into: &state, action: action) }`.
    public init(step: @escaping (inout State, Action) -> Void) {
        self.reduce = step
    }

    /// The first seq where the reducer's state differs from the recording, or `nil` when every
    /// recorded state is reproduced.
    ///
    /// - Throws: ``DecodeFailure`` when a state or action does not decode; `JSONPatchError`
    ///   for a recording whose patches do not apply.
    public func firstMismatch(in recording: Recording) throws -> ReplayMismatch? {
        let redactor = try Redactor(recording.redacted, keys: recording.redactedKeys)
        let encoder = JSONValueEncoder()
        var expected = recording.initialState
        var state = try DecodeFailure.decode(State.self, from: expected, as: .state)
        // Redacted as the recorder did: with the secrets of every state so far.
        var secretsBefore = redactor.secrets(in: expected)
        for step in recording.steps {
            let action = try DecodeFailure.decode(Action.self, from: step.action, as: .action(seq: step.seq))
            reduce(&state, action)
            guard let patch = step.patch else { continue }
            try expected.apply(try JSONPatch(json: patch))
            if step.isSkipped { continue }
            var actual = try encoder.encodeReportingNonFinite(state).value
            secretsBefore.formUnion(redactor.secrets(in: actual))
            redactor.redact(&actual, secrets: secretsBefore)
            if actual != expected {
                return ReplayMismatch(seq: step.seq, action: step.action, expected: expected, actual: actual,
                                      changes: JSONDiff(from: expected, to: actual).changes)
            }
        }
        return nil
    }

    /// ``firstMismatch(in:)`` for a session of a log file (`latest` by default).
    public func firstMismatch(inLog path: String, session: String = "latest") throws -> ReplayMismatch? {
        try firstMismatch(in: try Recording.load(fromLog: path, session: session))
    }
}
