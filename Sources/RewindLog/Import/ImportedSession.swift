import Foundation
import RewindJSON

/// A session read from a file and checked whole, ready to be written with
/// ``LogWriter/write(_:uuid:app:)``: its events, built by ``EventBuilder``, and what the
/// import remembers about the file.
public struct ImportedSession: Sendable {
    /// The events, seq 0 first. Their ``LogEvent/sessionID`` is 0 until the session is written.
    public var events: [LogEvent]
    /// What the import remembers, stored in the session's meta under `import`.
    public var importMeta: ImportMeta
    /// The JSON Pointers the recorder redacted (a JSONL fixture's first line says so), kept in
    /// the session's meta as a recorded session keeps them.
    public var redacted: [String] = []
    /// The member names the recorder redacted wherever they appeared.
    public var redactedKeys: [String] = []
    /// The seq of the recording the first line stands for (`from` on a fixture that starts at a
    /// later state): the events are numbered from 0, and their causes from this seq.
    public var firstSeq: Int64 = 0
    /// The time of seq 0, which becomes the session's start.
    public var startedAt: Date {
        events.first?.at ?? Date(timeIntervalSince1970: importMeta.importedAt ?? 0)
    }
    /// The time of the last event, which becomes the session's end.
    public var endedAt: Date {
        events.last?.at ?? startedAt
    }

    /// Makes an imported session from its events.
    public init(events: [LogEvent], importMeta: ImportMeta) {
        self.events = events
        self.importMeta = importMeta
    }
}
