import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// Where a re-run first differed from the recording.
public struct ReplayMismatch: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong at ``seq``.
    public enum Kind: Sendable, Equatable {
        /// The reducer's state differs from the recorded one.
        case stateDiffers
        /// The step's state differed, and the reducer, run again on the same state and action at
        /// least a millisecond later, gave another state: it is not a pure function there
        /// (`Date()`, `UUID()`, randomness). ``changes`` are from the first run's state to the
        /// second's.
        case notDeterministic
        /// At a seq given a ``ReplayExpectation``, the reducer's state does not hold the expected
        /// values: ``unmet`` says where, with the expected, replayed and recorded values.
        case notAsExpected
    }

    /// A value the state should have held (``Kind/notAsExpected``).
    public struct Unmet: Sendable, Equatable {
        /// Where.
        public var pointer: JSONPointer
        /// What it should have been (``ReplayExpectation/value``).
        public var expected: JSONValue
        /// What the reducer gave (`nil`: nothing there).
        public var replayed: JSONValue?
        /// What the recording holds (`nil`: nothing there, or the state was not recorded).
        public var recorded: JSONValue?
        /// `false` when the recording has no state at that seq (coalesced, or actions alone).
        public var wasRecorded: Bool

        public init(pointer: JSONPointer, expected: JSONValue, replayed: JSONValue?, recorded: JSONValue?, wasRecorded: Bool = true) {
            self.pointer = pointer
            self.expected = expected
            self.replayed = replayed
            self.recorded = recorded
            self.wasRecorded = wasRecorded
        }
    }

    /// What went wrong.
    public var kind: Kind = .stateDiffers
    /// The seq whose state differs.
    public var seq: Int64
    /// The action at that seq, as recorded.
    public var action: JSONValue
    /// Where the app sent the action, when it was recorded.
    public var site: SendSite?
    /// The recorded state (for ``Kind/notDeterministic``, the first run's state).
    public var expected: JSONValue
    /// The state the reducer produced (for ``Kind/notDeterministic``, the second run's).
    public var actual: JSONValue
    /// What differs, from the recorded state to the produced one.
    public var changes: [JSONChange]
    /// For ``Kind/notAsExpected``: each expected value the state did not hold.
    public var unmet: [Unmet] = []

    /// The change lines ``description`` shows before "… and K more".
    public static let defaultMaxLines = 20

    /// ``description(maxLines:)`` with ``defaultMaxLines``.
    ///
    /// ```
    /// state differs at seq 8 after {"add":{"_0":2}} (sent at App/CartView.swift:42 body):
    ///   /count  recorded: 15  replayed: 16
    /// ```
    public var description: String { description(maxLines: Self.defaultMaxLines) }

    /// The seq, the action and its send site, then one line per change: where, the recorded
    /// value and the value the reducer produced on replay (`absent` where one side has nothing);
    /// at most `maxLines` change lines, then `… and K more`.
    public func description(maxLines: Int) -> String {
        let sent = site.map { " (sent at \($0.description))" } ?? ""
        let action = Self.cut(self.action.serialized(), 300)
        var lines: [String]
        switch kind {
        case .stateDiffers:
            lines = ["state differs at seq \(seq) after \(action)\(sent):"]
        case .notDeterministic:
            lines = ["the reducer is not deterministic at seq \(seq) after \(action)\(sent): its state differed, and run "
                     + "again on the same state and action a millisecond later it gave another one. Move what it reads "
                     + "from the world (Date(), UUID(), "
                     + "random numbers) into the action or the state; see Docs/Integrating.md, \"A recorded bug becomes a test\"."]
        case .notAsExpected:
            lines = ["the state at seq \(seq) after \(action)\(sent) is not what it should be:"]
            let shown = unmet.prefix(max(0, maxLines))
            for value in shown {
                let place = value.pointer.isRoot ? "(the whole state)" : value.pointer.description
                let expected = Self.cut(value.expected.serialized(), 200)
                let replayed = Self.cut(value.replayed?.serialized() ?? "absent", 200)
                let recorded = value.wasRecorded ? Self.cut(value.recorded?.serialized() ?? "absent", 200) : "not recorded"
                lines.append("  \(place)  expected: \(expected)  replayed: \(replayed)  recorded: \(recorded)")
            }
            if unmet.count > shown.count {
                lines.append("  … and \(unmet.count - shown.count) more")
            }
            return lines.joined(separator: "\n")
        }
        let (first, second) = kind == .stateDiffers ? ("recorded", "replayed") : ("first run", "second run")
        let shown = changes.prefix(max(0, maxLines))
        for change in shown {
            let place = change.path.isRoot ? "(the whole state)" : change.path.description
            let old = Self.cut(change.oldValue?.serialized() ?? "absent", 200)
            let new = Self.cut(change.newValue?.serialized() ?? "absent", 200)
            lines.append("  \(place)  \(first): \(old)  \(second): \(new)")
        }
        if changes.count > shown.count {
            lines.append("  … and \(changes.count - shown.count) more")
        }
        return lines.joined(separator: "\n")
    }

    /// `text` cut to `limit` characters with `…`.
    static func cut(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    public init(kind: Kind = .stateDiffers, seq: Int64, action: JSONValue, site: SendSite? = nil,
                expected: JSONValue, actual: JSONValue, changes: [JSONChange]) {
        self.kind = kind
        self.seq = seq
        self.action = action
        self.site = site
        self.expected = expected
        self.actual = actual
        self.changes = changes
    }
}

/// What the state should have held at a seq, where the recording holds a bug: the value at
/// ``pointer`` after the action at ``seq``. `rewind test --expect SEQ:POINTER=JSON` writes them
/// into the test it generates, which then fails until the reducer is fixed.
///
/// ```swift
/// let expected = [try ReplayExpectation(seq: 12, pointer: "/cart/total", json: "123.73")]
/// let mismatch = try ReplayVerifier(step: shopStep).firstMismatch(in: recording, expecting: expected)
/// ```
public struct ReplayExpectation: Sendable, Equatable {
    /// The seq whose state (after its action) is checked.
    public var seq: Int64
    /// Where in that state.
    public var pointer: JSONPointer
    /// What it should be.
    public var value: JSONValue

    public init(seq: Int64, pointer: JSONPointer, value: JSONValue) {
        self.seq = seq
        self.pointer = pointer
        self.value = value
    }

    /// An expectation from the text `rewind test --expect` takes: a JSON Pointer and a JSON value.
    ///
    /// - Throws: ``ExpectationError`` for a pointer or a value that does not parse.
    public init(seq: Int64, pointer: String, json: String) throws(ExpectationError) {
        do {
            self.pointer = try JSONPointer(pointer)
        } catch {
            throw ExpectationError("the expectation at seq \(seq): '\(pointer)' is not a JSON Pointer (\(error))")
        }
        do {
            self.value = try JSONValue(parsing: json)
        } catch {
            throw ExpectationError("the expectation at seq \(seq) for \(pointer.isEmpty ? "the whole state" : pointer): the value is not JSON (\(error))")
        }
        self.seq = seq
    }
}

/// An expectation that cannot be checked, in one sentence.
public struct ExpectationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
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
    /// Where a step's state differs (from the recording, or from an expectation), runs that step
    /// again from the same prior state, at least a millisecond later, and reports a reducer that
    /// gives another state as not deterministic (``ReplayMismatch/Kind/notDeterministic``, with
    /// the paths that changed between the two runs). On by default; it keeps a copy of the state
    /// before each step, and runs the reducer again only where a state differs.
    public var checksDeterminism = true

    /// Returns once `Date()` is past `instant` (a reducer that reads the clock reads another
    /// value), waiting at most 50 ms of monotonic time should the wall clock be set back.
    static func waitForTheClock(toPass instant: Date) {
        let deadline = MonotonicClock.nanoseconds() + 50_000_000
        while Date() <= instant, MonotonicClock.nanoseconds() < deadline {
            usleep(200)
        }
    }

    /// A verifier for any store's reducer, given as one step: change `state` for `action`. For a
    /// ReSwift reducer `(Action, State?) -> State`, write `{ state, action in state = reducer(action, state) }`;
    /// for a TCA reducer, `{ state, action in _ = reducer.reduce(into: &state, action: action) }`.
    public init(step: @escaping (inout State, Action) -> Void) {
        self.reduce = step
    }

    /// The first seq where the reducer's state differs from the recording, or `nil` when every
    /// recorded state is reproduced.
    ///
    /// - Throws: ``DecodeError`` when a state or action does not decode; `JSONPatchError`
    ///   for a recording whose patches do not apply.
    public func firstMismatch(in recording: Recording) throws -> ReplayMismatch? {
        try firstMismatch(in: recording, expecting: [])
    }

    /// For a recording that holds a bug: every state before the first expectation's seq is
    /// checked against the recording (as ``firstMismatch(in:)`` does), and at each expectation's
    /// seq the given values are checked instead (``ReplayMismatch/Kind/notAsExpected`` names
    /// them, with the values the reducer gave and the recording holds). States after the first
    /// expectation are not compared with the recording, which holds the bug's consequences.
    /// Without expectations, this is ``firstMismatch(in:)``.
    ///
    /// - Throws: ``ExpectationError`` for an expectation at a seq the recording does not have;
    ///   otherwise as ``firstMismatch(in:)``.
    public func firstMismatch(in recording: Recording, expecting expectations: [ReplayExpectation]) throws -> ReplayMismatch? {
        let recordedSeqs = Set(recording.steps.map(\.seq))
        for expectation in expectations where !recordedSeqs.contains(expectation.seq) {
            throw ExpectationError("the expectation at seq \(expectation.seq) is outside the recording, whose actions are seqs "
                                   + "\(recording.firstSeq + 1)…\(recording.lastSeq)")
        }
        for step in recording.steps where step.isReplayedMark || step.isLeftOut || step.isCrashedMark {
            if expectations.contains(where: { $0.seq == step.seq }) {
                throw ExpectationError("the expectation at seq \(step.seq) is at no action of the app's (\(step.action["type"]?.stringValue ?? "a mark")): "
                                       + "expect the value at the next action instead")
            }
        }
        let firstExpected = expectations.map(\.seq).min()
        let expectedAt = Dictionary(grouping: expectations, by: \.seq)
        let redactor = try Redactor(recording.redacted, keys: recording.redactedKeys)
        let encoder = JSONValueEncoder()
        var expected = recording.initialState
        var state = try DecodeError.decode(State.self, from: expected, as: .state)
        // Redacted as the recorder did: with the secrets of every state so far.
        var secretsBefore = redactor.secrets(in: expected)
        var knowsRecorded = true
        for step in recording.steps {
            // Events that are no action of the app's: a replay set the state (the verifier takes
            // the recorded one and goes on from it), or a branch left an action out (nothing
            // changed).
            if step.isReplayedMark || step.isLeftOut || step.isCrashedMark {
                if let patch = step.patch, knowsRecorded {
                    try expected.apply(try JSONPatch(json: patch))
                    if step.isReplayedMark {
                        state = try DecodeError.decode(State.self, from: expected, as: .state)
                        secretsBefore.formUnion(redactor.secrets(in: expected))
                    }
                } else {
                    knowsRecorded = false
                }
                continue
            }
            let action = try DecodeError.decode(Action.self, from: step.action, as: .action(seq: step.seq))
            // The state before the step, kept to run it again should its result differ.
            let prior: State? = checksDeterminism ? state : nil
            let ranAt = Date()
            reduce(&state, action)
            /// The step run again from the same prior state, at least a millisecond after the
            /// first run: a reducer that reads the clock (even to the millisecond) or a random
            /// source gives another state, and that is said instead of a plain difference.
            func notDeterministic() throws -> ReplayMismatch? {
                guard var again = prior else { return nil }
                Self.waitForTheClock(toPass: ranAt.addingTimeInterval(0.001))
                reduce(&again, action)
                let first = try encoder.encodeReportingNonFinite(state).value
                let second = try encoder.encodeReportingNonFinite(again).value
                guard first != second else { return nil }
                return ReplayMismatch(kind: .notDeterministic, seq: step.seq, action: step.action, site: step.site,
                                      expected: first, actual: second, changes: JSONDiff(from: first, to: second).changes)
            }
            var recorded = false
            if let patch = step.patch, knowsRecorded {
                try expected.apply(try JSONPatch(json: patch))
                recorded = !step.isSkipped
            } else {
                // A recording of actions alone: the recorded states are not known from here on.
                knowsRecorded = false
            }
            if let firstExpected, step.seq >= firstExpected {
                guard let wanted = expectedAt[step.seq] else { continue }
                var actual = try encoder.encodeReportingNonFinite(state).value
                secretsBefore.formUnion(redactor.secrets(in: actual))
                redactor.redact(&actual, secrets: secretsBefore)
                let unmet = wanted.compactMap { expectation -> ReplayMismatch.Unmet? in
                    let replayed = expectation.pointer.resolve(in: actual)
                    guard replayed != expectation.value else { return nil }
                    return ReplayMismatch.Unmet(pointer: expectation.pointer, expected: expectation.value, replayed: replayed,
                                                recorded: recorded ? expectation.pointer.resolve(in: expected) : nil,
                                                wasRecorded: recorded)
                }
                if !unmet.isEmpty {
                    if let mismatch = try notDeterministic() { return mismatch }
                    var mismatch = ReplayMismatch(kind: .notAsExpected, seq: step.seq, action: step.action, site: step.site,
                                                  expected: expected, actual: actual, changes: [])
                    mismatch.unmet = unmet
                    return mismatch
                }
                continue
            }
            guard recorded else { continue }
            var actual = try encoder.encodeReportingNonFinite(state).value
            secretsBefore.formUnion(redactor.secrets(in: actual))
            redactor.redact(&actual, secrets: secretsBefore)
            if actual != expected {
                if let mismatch = try notDeterministic() { return mismatch }
                return ReplayMismatch(seq: step.seq, action: step.action, site: step.site, expected: expected, actual: actual,
                                      changes: JSONDiff(from: expected, to: actual).changes)
            }
        }
        return nil
    }

    /// For a session whose app crashed in the reducer (`rewind test` writes the call): replays
    /// the recording through the step, without comparing (a replay's mark sets the recorded
    /// state, as ``firstMismatch(in:)`` does), then runs `action`, the one being reduced when the
    /// app crashed, from the state the replay leaves. It crashes as the app did while the reducer
    /// still does; run it where a crash fails only the test (Swift Testing's exit tests).
    ///
    /// - Returns: the state after `action`.
    /// - Throws: ``DecodeError`` when a state or an action does not decode.
    @discardableResult
    public func reproduceCrash(in recording: Recording, action: JSONValue) throws -> State {
        var recorded = recording.initialState
        var knowsRecorded = true
        var state = try DecodeError.decode(State.self, from: recorded, as: .state)
        for step in recording.steps {
            if let patch = step.patch, knowsRecorded {
                try recorded.apply(try JSONPatch(json: patch))
            } else {
                knowsRecorded = false
            }
            if step.isReplayedMark {
                if knowsRecorded { state = try DecodeError.decode(State.self, from: recorded, as: .state) }
                continue
            }
            if step.isLeftOut || step.isCrashedMark { continue }
            reduce(&state, try DecodeError.decode(Action.self, from: step.action, as: .action(seq: step.seq)))
        }
        let crashing = try DecodeError.decode(Action.self, from: action, as: .action(seq: recording.lastSeq + 1))
        reduce(&state, crashing)
        return state
    }

    /// ``firstMismatch(in:)`` for a session of a log file (`latest` by default).
    public func firstMismatch(inLog path: String, session: String = "latest") throws -> ReplayMismatch? {
        try firstMismatch(in: try Recording.load(fromLog: path, session: session))
    }
}
