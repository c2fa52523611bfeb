import Foundation
import RewindJSON
import RewindLog

/// A recorded session as replays and the verifier use it: the initial state and each action
/// with the patch it made.
///
/// ```swift
/// let recording = try Recording.load(fromLog: "/tmp/app.db", session: "latest")
/// try await store.replay(recording, from: 10, to: 40, pace: .interval(.milliseconds(100)))
/// ```
public struct Recording: Sendable {
    /// One recorded action.
    public struct Step: Sendable, Equatable {
        /// The action's seq (1, 2, …).
        public var seq: Int64
        /// The action as recorded.
        public var action: JSONValue
        /// The RFC 6902 patch it made, or `nil` when not recorded.
        public var patch: JSONValue?
        /// `true` when the recorder coalesced states before or at this step.
        public var coalesced: Bool
        /// The seq of the action whose effect sent this one.
        public var cause: Int64?
        /// When it was sent.
        public var at: Date?
        /// Where the app sent it, when recorded.
        public var site: SendSite?

        /// Makes a step.
        public init(seq: Int64, action: JSONValue, patch: JSONValue? = nil, coalesced: Bool = false,
                    cause: Int64? = nil, at: Date? = nil, site: SendSite? = nil) {
            self.site = site
            self.seq = seq
            self.action = action
            self.patch = patch
            self.coalesced = coalesced
            self.cause = cause
            self.at = at
        }

        /// A step whose state was not recorded (the recorder's queue was full).
        package var isSkipped: Bool { coalesced && (patch.map { $0 == [] } ?? true) }
    }

    /// The uuid of the recorded session, when it comes from a log.
    public var sessionUUID: String?
    /// The state at seq 0.
    public var initialState: JSONValue
    /// The actions of seqs 1, 2, … in order.
    public var steps: [Step]
    /// The JSON Pointers the recorder redacted (from the session's meta).
    public var redacted: [String]
    /// The member names the recorder redacted wherever they appeared (from the session's meta).
    public var redactedKeys: [String] = []
    /// The seq of ``initialState`` in the recorded session: 0, unless the recording starts at a
    /// later state (a fixture written by `rewind test --from`).
    public var firstSeq: Int64 = 0

    /// A recording from an initial state and actions (seqs 1, 2, …), without patches.
    public init(initialState: JSONValue, actions: [JSONValue], sessionUUID: String? = nil) {
        self.sessionUUID = sessionUUID
        self.initialState = initialState
        self.steps = actions.enumerated().map { Step(seq: Int64($0.offset + 1), action: $0.element) }
        self.redacted = []
    }

    /// A recording from its parts.
    public init(initialState: JSONValue, steps: [Step], sessionUUID: String? = nil, redacted: [String] = []) {
        self.sessionUUID = sessionUUID
        self.initialState = initialState
        self.steps = steps
        self.redacted = redacted
    }

    /// The last seq.
    public var lastSeq: Int64 { steps.last?.seq ?? firstSeq }

    /// Reads a whole session from a log file; `session` is an id, a uuid prefix or `latest`.
    public static func load(fromLog path: String, session name: String = "latest") throws(LogError) -> Recording {
        let reader = try LogReader(path: path)
        let session = try reader.session(named: name)
        let events = try reader.events(session: session.id, includeKeyframes: true)
        guard let first = events.first, let initial = first.keyframe else {
            throw LogError(kind: .invalidEvent(session: session.id, seq: 0), message: "the session has no initial state", path: path)
        }
        let steps = events.dropFirst().map { event in
            Step(seq: event.seq, action: event.action, patch: event.patch, coalesced: event.coalesced,
                 cause: event.cause, at: event.at, site: event.site)
        }
        let redacted = session.meta["redacted"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var recording = Recording(initialState: initial, steps: steps, sessionUUID: session.uuid, redacted: redacted)
        recording.redactedKeys = session.meta["redactedKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return recording
    }

    /// Reads a session that `rewind export SESSION --format jsonl` wrote: one line per state,
    /// the first without an action. Keep the file beside a test and read it from there; no
    /// bundle resources are needed:
    ///
    /// ```swift
    /// let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    ///     .appendingPathComponent("checkout-bug.jsonl").path
    /// let recording = try Recording.load(fromJSONL: fixture)
    /// ```
    ///
    /// - Throws: a ``LogFileError`` naming a missing or unreadable file; an error naming the
    ///   line and what is wrong with it for a file that is not such an export.
    public static func load(fromJSONL path: String) throws -> Recording {
        let path = LogFileError.expandingTilde(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw LogFileError(exists ? (isDirectory.boolValue ? "\(path) is a folder, not a JSONL recording" : "cannot read \(path)")
                                 : "no recording at \(path): export one with `rewind export SESSION --format jsonl --output \(path)`")
        }
        let session = try JSONLImport.parse(Array(data), options: ImportOptions(file: path))
        guard let first = session.events.first, let initial = first.keyframe else {
            throw LogFileError("\(path) holds no initial state")
        }
        // A fixture that starts at a later state (`rewind test --from`) keeps the recording's seqs.
        let offset = session.firstSeq
        let steps = session.events.dropFirst().map { event in
            Step(seq: event.seq + offset, action: event.action, patch: event.patch, coalesced: event.coalesced,
                 cause: event.cause.map { $0 + offset }, at: event.at, site: event.site)
        }
        var recording = Recording(initialState: initial, steps: steps, redacted: session.redacted)
        recording.redactedKeys = session.redactedKeys
        recording.firstSeq = offset
        return recording
    }

    /// The recorded state at `seq`, rebuilt from the patches; `nil` when a step before it has no
    /// patch (a recording of actions alone).
    public func state(at seq: Int64) throws(JSONPatchError) -> JSONValue? {
        var state = initialState
        for step in steps where step.seq <= seq {
            guard let patch = step.patch else { return nil }
            try state.apply(try JSONPatch(json: patch))
        }
        return state
    }
}
