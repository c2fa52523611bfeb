import Foundation
import RewindJSON
import RewindLog

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
public final class LogFileSink: RecordingSink, @unchecked Sendable {
    /// The log file.
    public let path: String
    private let createsDirectory: Bool
    private let lock = NSLock()
    // Guarded by `lock`.
    private var writer: LogWriter?
    private var sessionIDs: [String: Int64] = [:]
    private var failure: LogError?

    /// A sink for the log at `path` (a leading `~` is the home folder); with `createDirectory`,
    /// missing parent folders are made.
    public init(path: String, createDirectory: Bool = false) {
        self.path = LogFileProblem.expandingTilde(path)
        self.createsDirectory = createDirectory
    }

    deinit {
        if writer != nil { SharedLogWriters.giveBack(path) }
    }

    /// Opens the file when needed and records the session.
    public func begin(_ session: RecordingSession) throws {
        lock.lock()
        defer { lock.unlock() }
        let writer = try openedWriter()
        sessionIDs[session.uuid] = try writer.openSession(uuid: session.uuid, app: session.app,
                                                          startedAt: session.startedAt, meta: session.meta,
                                                          replayOf: session.replayOf, run: session.run,
                                                          hashVersion: session.hashVersion)
    }

    /// Appends the events; a failure to commit them surfaces on the next call.
    public func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        lock.lock()
        if let failure {
            lock.unlock()
            throw failure
        }
        guard let writer, let id = sessionIDs[session.uuid] else {
            lock.unlock()
            throw LogError(kind: .unknownSession(session.uuid), message: "it was never begun", path: path)
        }
        lock.unlock()
        writer.append(events.logEvents(session: id)) { [weak self] result in
            guard case .failure(let error) = result, let self else { return }
            self.lock.lock()
            if self.failure == nil { self.failure = error }
            self.lock.unlock()
        }
    }

    /// Returns once every event written so far is committed to the file.
    public func flush() throws {
        lock.lock()
        let writer = self.writer
        lock.unlock()
        try writer?.flush()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }

    /// Records when the session ended.
    public func end(_ session: RecordingSession, at date: Date) throws {
        lock.lock()
        let writer = self.writer
        let id = sessionIDs.removeValue(forKey: session.uuid)
        lock.unlock()
        guard let writer, let id else { return }
        try writer.flush()
        try writer.endSession(id: id, at: date)
    }

    private func openedWriter() throws -> LogWriter {
        if let writer { return writer }
        // In an iOS app's container the folder is also excluded from backup.
        try LogFileProblem.prepare(path, createFolder: createsDirectory)
        let opened = try SharedLogWriters.borrow(path)
        writer = opened
        return opened
    }
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
