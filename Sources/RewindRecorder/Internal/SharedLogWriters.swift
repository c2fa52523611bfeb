import Foundation
import RewindLog
import RewindSupport

/// The process's writers for log files, one per file, shared by every ``LogFileSink`` on it.
///
/// A log takes one writer at a time (``LogWriter`` refuses a second, in this process as in
/// another), while an app may well record two stores into one file, or the default log twice.
/// Sinks therefore borrow the file's one writer from here; the last to let go closes it.
enum SharedLogWriters {
    private struct Entry {
        var writer: LogWriter
        var users: Int
    }

    private static let entries = Mutex<[String: Entry]>([:])

    /// The writer of the log at `path`, opened when no sink has it yet.
    static func borrow(_ path: String) throws -> LogWriter {
        let key = Self.key(path)
        return try entries.withLock { entries in
            if var entry = entries[key] {
                entry.users += 1
                entries[key] = entry
                return entry.writer
            }
            let writer = try LogWriter(path: path)
            entries[key] = Entry(writer: writer, users: 1)
            return writer
        }
    }

    /// Gives back a writer borrowed for `path`; the last one back closes it.
    static func giveBack(_ path: String) {
        let key = Self.key(path)
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            entry.users -= 1
            if entry.users > 0 {
                entries[key] = entry
                return
            }
            entries[key] = nil
            // Under the lock: closing commits what is pending and waits for the writer's thread
            // (milliseconds), and a sink that borrows the file meanwhile must find it closed, not
            // still held by the writer being closed (the one-writer lock would refuse it).
            entry.writer.close()
        }
    }

    /// One spelling per file: `/tmp/a/../app.db` and `/tmp/app.db` share a writer. Built from
    /// the resolved folder (which exists) and the file's name, so that it is the same before
    /// and after the file is created (Darwin resolves `/private/var` only for paths that exist).
    private static func key(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
    }
}
