import Foundation
import RewindLog
import RewindSupport

/// The process's writers for log files, one per file, shared by every sink on it.
///
/// A log takes one writer at a time (``LogWriter`` refuses a second, in this process as in
/// another), while an app may well record two stores into one file, or the default log twice.
/// Sinks therefore borrow the file's one writer from here (through a ``WriterLoan``); the last to
/// give it back closes it.
///
/// Locks, so that none of them can wait on another in a circle: the table of files is held only
/// to find a file's slot; a slot is held while its file's writer opens or closes (which waits for
/// that writer's thread), so only sinks of that one file wait meanwhile. No sink calls in here
/// with a lock of its own held, and a writer's completions take only locks that nobody holds
/// while waiting for a writer.
enum SharedLogWriters {
    private final class Slot: Sendable {
        struct State {
            var writer: LogWriter?
            var users = 0
            /// The writer closed last, while its thread may still be finishing (closed from a
            /// completion on that very thread, it could not wait): the next writer waits for it,
            /// or the one-writer lock would refuse the file to its own process.
            var closed: LogWriter?
        }

        let state = Mutex(State())
    }

    /// One slot per file this process ever opened (a few in an app; a slot is a few words).
    private static let slots = Mutex<[String: Slot]>([:])

    private static func slot(_ path: String) -> Slot {
        let key = Self.key(path)
        return slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
    }

    /// The writer of the log at `path`, opened when no sink has it yet.
    static func borrow(_ path: String) throws -> LogWriter {
        try slot(path).state.withLock { state in
            if let writer = state.writer {
                state.users += 1
                return writer
            }
            state.closed?.close()
            state.closed = nil
            let writer = try LogWriter(path: path)
            state.writer = writer
            state.users = 1
            return writer
        }
    }

    /// Gives back a writer borrowed for `path`; the last one back closes it.
    static func giveBack(_ path: String) {
        slot(path).state.withLock { state in
            guard let writer = state.writer, state.users > 0 else { return }
            state.users -= 1
            guard state.users == 0 else { return }
            state.writer = nil
            // Under the slot's lock: closing commits what is pending and waits for the writer's
            // thread (milliseconds), and a sink that borrows the file meanwhile must find it
            // closed, not still held by the writer being closed.
            writer.close()
            state.closed = writer
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

/// One sink's hold on its file's shared writer (``SharedLogWriters``): borrowed at the first
/// need, given back when the sink goes.
///
/// The borrow happens with no lock held (two sessions beginning at once may both borrow: the
/// second gives its extra back), so that a sink's own lock is only ever held for moments and a
/// writer's completion may take it.
final class WriterLoan: Sendable {
    let path: String
    private let held = Mutex<LogWriter?>(nil)

    init(path: String) {
        self.path = path
    }

    deinit {
        if held.withLock({ $0 }) != nil { SharedLogWriters.giveBack(path) }
    }

    /// The writer when it was borrowed already.
    var current: LogWriter? { held.withLock { $0 } }

    /// The writer, borrowed at the first call: `prepare` runs before (the file's folder), and
    /// `borrowed` once after the loan is taken (a crash of an earlier run written in).
    func writer(prepare: () throws -> Void, borrowed: (LogWriter) -> Void = { _ in }) throws -> LogWriter {
        if let writer = current { return writer }
        try prepare()
        let writer = try SharedLogWriters.borrow(path)
        let kept = held.withLock { held -> Bool in
            guard held == nil else { return false }
            held = writer
            return true
        }
        guard kept else {
            SharedLogWriters.giveBack(path)
            return current ?? writer
        }
        borrowed(writer)
        return writer
    }
}
