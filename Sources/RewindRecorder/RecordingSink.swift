import Foundation
import RewindJSON
import RewindLog

/// Where a recorder sends its sessions: a log file (``LogFileSink``) or a server
/// (``ServerSink``), given to ``RecordingDestination/sinks(_:)`` to record into several at once.
///
/// Rewind's own sinks are the only ones: what a sink is asked to do (a session begins, its
/// events, flush, end) runs on the recorder's thread and is Rewind's business, not the app's,
/// so none of it is public. A type of the app's own that conforms is reported by the recorder
/// (``Recorder/lastError``) and written nothing.
public protocol RecordingSink: AnyObject, Sendable {}

/// What a recorder asks of a sink, on its own thread, never on the dispatch path. One sink may
/// serve several recorders at once (a replay records a second session beside the live one), so
/// it must be thread-safe. A method that throws stops the recorder that called it, which reports
/// the error once (``Recorder/lastError``); the app goes on.
package protocol SessionSink: RecordingSink {
    /// A new session starts; its events follow.
    func begin(_ session: RecordingSession) throws
    /// The next events of `session`, in seq order, already redacted.
    func write(_ events: [RecordedEvent], of session: RecordingSession) throws
    /// Everything written so far must be stored (or sent) before it returns.
    func flush() throws
    /// The session ended at `date`; no more events follow.
    func end(_ session: RecordingSession, at date: Date) throws
    /// Where the recorder keeps its sessions' crash journals (``CrashJournal``), so that this
    /// sink finds them the next run; `nil` for a sink that keeps nothing on the device.
    var crashJournalFolder: String? { get }
}

extension SessionSink {
    package var crashJournalFolder: String? { nil }
}

/// One recording session: ``Recorder/session`` names the one a recorder writes.
public struct RecordingSession: Sendable, Equatable {
    /// The session's identifier, unique across logs (a UUID string).
    public var uuid: String
    /// The app's name.
    public var app: String
    /// When the recording started.
    public var startedAt: Date
    /// What the app says about itself (version, host, free-form fields), a JSON object.
    public var meta: JSONValue
    /// The uuid of the session this one replays, when it is a replay.
    public var replayOf: String?
    /// The run: every session this process records has the same one (BLoC and MVVM apps record
    /// one session per store), so `rewind sessions` and the inspector show them together.
    public var run: String?
    /// Which state hash its events carry: new recordings use the tree hash (version 2), several
    /// times faster on large states than version 1.
    package var hashVersion: StateHashVersion
    /// The session's secret (``SessionOwner``), made with it: kept in the device's own logs and
    /// sent only at `hello`, it proves to a server that a resume or a push is this app's.
    package var secret: String

    /// The run id of this process: the sessions it records (one per store, BLoC and MVVM apps
    /// have several) carry it, so `rewind sessions` and the inspector show them together.
    package static let processRun = UUID().uuidString.lowercased()

    /// Describes a session.
    package init(uuid: String, app: String, startedAt: Date, meta: JSONValue, replayOf: String? = nil,
                run: String? = RecordingSession.processRun, hashVersion: StateHashVersion = .v2) {
        self.run = run
        self.hashVersion = hashVersion
        self.uuid = uuid
        self.app = app
        self.startedAt = startedAt
        self.meta = meta
        self.replayOf = replayOf
        self.secret = SessionOwner.newSecret()
    }
}

/// A built event and what the recorder noticed while encoding it.
package struct RecordedEvent: Sendable, Equatable {
    /// The event (its ``LogEvent/sessionID`` is 0: each sink puts its own id in).
    package var event: LogEvent
    /// JSON Pointers of the numbers JSON cannot hold (NaN, ±infinity), stored as the strings
    /// `"NaN"`, `"Infinity"`, `"-Infinity"`: `/state/…` in the state, `/action/…` in the action.
    package var nonFinitePointers: [String]

    /// Pairs an event with its non-finite pointers.
    package init(event: LogEvent, nonFinitePointers: [String] = []) {
        self.event = event
        self.nonFinitePointers = nonFinitePointers
    }
}
