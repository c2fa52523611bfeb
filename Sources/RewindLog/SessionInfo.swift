import Foundation
import RewindJSON

/// One recorded session (a row of `sessions`) with counts taken from its events.
public struct SessionInfo: Sendable, Equatable {
    /// The session's id in this log file (what `SESSION@SEQ` names use).
    public var id: Int64
    /// The app's identifier for the session, unique in the log.
    public var uuid: String
    /// The app's name.
    public var app: String
    /// When the session started.
    public var startedAt: Date
    /// When the session ended, if it has.
    public var endedAt: Date?
    /// What the app said about itself at hello (version, device…), a JSON object.
    public var meta: JSONValue
    /// The uuid of the session this one replays, when it is a replay.
    public var replayOf: String?
    /// The run the session belongs to: the sessions one process started share it (schema 3).
    public var run: String?
    /// Which state hash its events carry (schema 4; 1 for every session recorded before).
    public var hashVersion: StateHashVersion
    /// How many events are stored (seqs are gap-free, so this is `lastSeq + 1`).
    public var eventCount: Int
    /// The last stored seq, `nil` before the first event.
    public var lastSeq: Int64?
    /// How many keyframes are stored.
    public var keyframeCount: Int
    /// When the last stored event happened.
    public var lastEventAt: Date?
    /// The app died of a crash: its last event's action (``crashedType``), which says the signal,
    /// when, the action being reduced and how many recorded actions were lost. `nil` otherwise.
    public var crash: JSONValue?

    /// The action type of the event a crashed session ends with.
    public static let crashedType = "@@rewind/crashed"

    /// One line about the crash: `SIGILL in add (seq 40)`, `SIGSEGV between actions`.
    public var crashSummary: String? {
        guard let crash else { return nil }
        let signal = crash["signal"]?.stringValue ?? "a signal"
        guard let reducing = crash["reducing"], reducing != .null else { return "\(signal) between actions" }
        let seq = reducing["seq"]?.numberValue.map { " (seq \($0))" } ?? ""
        if let type = reducing["type"]?.stringValue { return "\(signal) in \(type)\(seq)" }
        return "\(signal) in a reduce\(seq)"
    }

    /// Makes a session description.
    public init(id: Int64, uuid: String, app: String, startedAt: Date, endedAt: Date? = nil, meta: JSONValue = [:],
                replayOf: String? = nil, eventCount: Int = 0, lastSeq: Int64? = nil, keyframeCount: Int = 0,
                lastEventAt: Date? = nil, run: String? = nil, hashVersion: StateHashVersion = .v1, crash: JSONValue? = nil) {
        self.crash = crash
        self.run = run
        self.hashVersion = hashVersion
        self.id = id
        self.uuid = uuid
        self.app = app
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.meta = meta
        self.replayOf = replayOf
        self.eventCount = eventCount
        self.lastSeq = lastSeq
        self.keyframeCount = keyframeCount
        self.lastEventAt = lastEventAt
    }
}
