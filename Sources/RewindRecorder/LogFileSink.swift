import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// Records into a Rewind log file through one ``LogWriter`` (its own thread, group commits).
///
/// The file is opened when the first session begins, on the recorder's thread. Several
/// recorders may share one sink, and every sink on one file in this process shares that file's
/// one writer (a log takes one writer at a time; another process's is refused in one sentence).
///
/// ```swift
/// let sink = LogFileSink(path: "/tmp/app.db")
/// store.record(to: .sinks([sink]), app: "MyApp")
/// ```
public final class LogFileSink: SessionSink, @unchecked Sendable {
    /// The log file.
    public let path: String
    private let createsDirectory: Bool
    private let loan: WriterLoan
    private struct Open {
        var sessionIDs: [String: Int64] = [:]
        var failure: LogError?
    }

    /// Held for moments only (never while waiting for the writer), so the writer's completions
    /// may take it.
    private let open = Mutex(Open())

    /// A sink for the log at `path` (a leading `~` is the home folder); with `createDirectory`,
    /// missing parent folders are made.
    public init(path: String, createDirectory: Bool = false) {
        self.path = LogFileError.expandingTilde(path)
        self.createsDirectory = createDirectory
        self.loan = WriterLoan(path: self.path)
    }

    /// Opens the file when needed and records the session.
    package func begin(_ session: RecordingSession) throws {
        let writer = try openedWriter()
        let id = try writer.openSession(uuid: session.uuid, app: session.app, startedAt: session.startedAt, meta: session.meta,
                                        replayOf: session.replayOf, run: session.run, hashVersion: session.hashVersion,
                                        owner: .keeping(session.secret))
        open.withLock { $0.sessionIDs[session.uuid] = id }
    }

    /// Appends the events; a failure to commit them surfaces on the next call.
    package func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        let id = try open.withLock { open in
            if let failure = open.failure { throw failure }
            guard let id = open.sessionIDs[session.uuid] else {
                throw LogError(kind: .unknownSession(session.uuid), message: "it was never begun", path: path)
            }
            return id
        }
        guard let writer = loan.current else {
            throw LogError(kind: .unknownSession(session.uuid), message: "it was never begun", path: path)
        }
        let uuid = session.uuid
        let last = events.last?.event.seq
        writer.append(events.logEvents(session: id)) { [weak self] result in
            if case .success = result, let last { CrashJournal.committed(session: uuid, through: last) }
            guard case .failure(let error) = result, let self else { return }
            self.open.withLock { open in
                if open.failure == nil { open.failure = error }
            }
        }
    }

    /// Returns once every event written so far is committed to the file.
    package func flush() throws {
        try loan.current?.flush()
        if let failure = open.withLock({ $0.failure }) { throw failure }
    }

    /// Records when the session ended.
    package func end(_ session: RecordingSession, at date: Date) throws {
        let id = open.withLock { $0.sessionIDs.removeValue(forKey: session.uuid) }
        guard let writer = loan.current, let id else { return }
        try writer.flush()
        try writer.endSession(id: id, at: date)
    }

    /// The writer, borrowed at the first session; the crashes of earlier runs beside the file
    /// are written in then.
    private func openedWriter() throws -> LogWriter {
        try loan.writer(prepare: {
            // In an iOS app's container the folder is also excluded from backup.
            try LogFileError.prepare(path, createFolder: createsDirectory)
        }, borrowed: { writer in
            CrashJournal.recover(in: crashJournalFolder, path: path, writer: writer)
        })
    }

    /// Beside the file: `.NAME.crashes`.
    package var crashJournalFolder: String? { CrashJournal.folder(forLog: path) }
}

extension Array where Element == RecordedEvent {
    /// The events as a log stores them, under the log's own id for their session.
    func logEvents(session id: Int64) -> [LogEvent] {
        map { recorded in
            var event = recorded.event
            event.sessionID = id
            return event
        }
    }
}
