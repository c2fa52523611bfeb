import CRewindCrash
import Foundation
import RewindJSON
import RewindLog
import RewindSupport
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// One session's crash journal: a small file mapped shared (``rewind_crash_slot``), written
/// before each reduce with the action's send site and after each record with its seq. The
/// signal handler (CRewindCrash, async-signal-safe) adds the signal and its time; the page
/// cache keeps what was written when the process dies, of any signal. The next run of the app
/// finds the journal (``dead(in:)``) and records the crash in the session (``CrashRecord``).
///
/// The file is held with `flock` while its process lives, so the next run tells a dead
/// session's journal from a live one's, and removed when the session ends.
@usableFromInline
final class CrashJournal: @unchecked Sendable {
    let path: String
    let slot: UnsafeMutablePointer<rewind_crash_slot>
    private let descriptor: Int32
    private let closed = Mutex(false)
    /// The action being reduced, encoded: what the watcher thread writes after a signal.
    private let pendingAction: @Sendable () -> JSONValue?

    /// The folder of the journals of a log at `logPath`: `.NAME.crashes` beside it, hidden, and
    /// named apart from the log's own files (`NAME`, `NAME-wal`, …).
    static func folder(forLog logPath: String) -> String {
        let url = URL(fileURLWithPath: logPath)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".crashes").path
    }

    /// Makes and maps the journal of `session` in `folder`, and has the handler watch it; `nil`
    /// when the folder or the file cannot be made (the recording goes on without it).
    init?(folder: String, session: RecordingSession, pendingAction: @escaping @Sendable () -> JSONValue?) {
        guard Self.watcher != nil else { return nil }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + session.uuid + ".crash"
        let size = MemoryLayout<rewind_crash_slot>.size
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, ftruncate(fd, off_t(size)) == 0,
              let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            closeDescriptor(fd)
            unlink(path)
            return nil
        }
        let slot = mapped.bindMemory(to: rewind_crash_slot.self, capacity: 1)
        slot.initialize(to: rewind_crash_slot())
        slot.pointee.magic = REWIND_CRASH_MAGIC
        slot.pointee.version = REWIND_CRASH_VERSION
        slot.pointee.pid = getpid()
        slot.pointee.recorded_through = 0
        slot.pointee.committed_through = -1
        Self.copy(session.uuid, into: &slot.pointee.session)
        Self.copy(session.app, into: &slot.pointee.app)
        guard rewind_crash_watch(slot) == 0 else {
            munmap(mapped, size)
            closeDescriptor(fd)
            unlink(path)
            return nil
        }
        self.path = path
        self.slot = slot
        self.descriptor = fd
        self.pendingAction = pendingAction
        // One journal per session; one it replaced goes after the lock, its deinit taking it too.
        _ = Self.journals.withLock { $0.updateValue(self, forKey: session.uuid) }
    }

    /// The watcher thread, started with the first journal: it blocks reading a pipe whose write
    /// end the handler has (`rewind_crash_set_wake`); after a signal it writes the action each
    /// journal's reduce was running into its slot (encoding is no work for a signal handler).
    /// `nil` when the pipe cannot be made: no journal then.
    private static let watcher: Int32? = {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The handler's write never blocks, whatever the watcher does.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let readEnd = ends[0]
        let thread = Thread {
            Thread.current.name = "rewind-crash-watcher"
            var byte: UInt8 = 0
            while readBytes(readEnd, &byte, 1) > 0 {
                for journal in journals.withLock({ Array($0.values) }) { journal.writePendingAction() }
            }
        }
        thread.start()
        rewind_crash_set_wake(ends[1])
        return ends[1]
    }()

    /// After a signal, on the watcher thread: the action being reduced, as compact JSON, into
    /// the slot (only its type when it does not fit).
    func writePendingAction() {
        guard slot.pointee.reducing != 0, slot.pointee.action_state == 0 else { return }
        guard let action = pendingAction() else {
            slot.pointee.action_state = 2
            return
        }
        let capacity = Int(REWIND_CRASH_ACTION)
        var bytes = action.serializedBytes(.compact)
        var state: Int32 = 1
        if bytes.count > capacity {
            bytes = JSONValue.object(["type": .string(LogEvent.actionType(of: action))]).serializedBytes(.compact)
            state = 2
        }
        guard bytes.count <= capacity else {
            slot.pointee.action_state = 2
            return
        }
        withUnsafeMutableBytes(of: &slot.pointee.action) { raw in raw.copyBytes(from: bytes) }
        slot.pointee.action_length = UInt32(bytes.count)
        slot.pointee.action_state = state
    }

    /// The journals of this process's sessions, by session uuid.
    private static let journals = Mutex<[String: CrashJournal]>([:])

    /// The device's log committed `session`'s events through `seq` (a sink's writer says so).
    static func committed(session: String, through seq: Int64) {
        journals.withLock { journals in
            guard let slot = journals[session]?.slot, seq > slot.pointee.committed_through else { return }
            slot.pointee.committed_through = seq
        }
    }

    deinit {
        close(removing: false)
        // Unmapped only now, when nothing can write into the slot any more: a recorder whose
        // session stopped (a sink failed) still has its app call `record` and `willReduce`,
        // which write here; unmapped at the close, that wrote to freed memory and crashed the app.
        munmap(UnsafeMutableRawPointer(slot), MemoryLayout<rewind_crash_slot>.size)
    }

    /// Before a reduce: the action sent from `site` is about to run.
    func willReduce(site: SendSite?) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let wall = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
        guard let site else {
            rewind_crash_will_reduce(slot, wall, nil, 0, 0, nil, 0)
            return
        }
        var file = site.file
        var function = site.function
        file.withUTF8 { fileBytes in
            function.withUTF8 { functionBytes in
                fileBytes.withMemoryRebound(to: CChar.self) { filePointer in
                    functionBytes.withMemoryRebound(to: CChar.self) { functionPointer in
                        rewind_crash_will_reduce(slot, wall, filePointer.baseAddress, Int32(clamping: filePointer.count), Int32(clamping: site.line),
                                                 functionPointer.baseAddress, Int32(clamping: functionPointer.count))
                    }
                }
            }
        }
    }

    /// The reduce is over and the recorder took the action as `seq` (`nil`: it recorded nothing).
    @usableFromInline
    func didRecord(_ seq: Int64?) {
        rewind_crash_did_record(slot, seq ?? -1)
    }

    /// The session ended: the handler stops watching, and the file goes with `removing`. Writes
    /// into the slot after it are harmless (it stays mapped until the journal goes).
    func close(removing: Bool) {
        let already = closed.withLock { closed -> Bool in
            defer { closed = true }
            return closed
        }
        guard !already else { return }
        let uuid = Self.text(of: slot)
        Self.journals.withLock { journals in
            if journals[uuid] === self { journals[uuid] = nil }
        }
        rewind_crash_unwatch(slot)
        // The mapping stays until deinit (the file's pages with it, unlinked or not): the
        // recorder's app may still write into the slot.
        if removing { unlink(path) }
        // Unlocked before it is closed: a child another thread is spawning right now holds a copy
        // of the descriptor until it execs, and closing ours alone would leave the journal locked
        // (alive, to the next run's eyes) by that copy.
        _ = flock(descriptor, LOCK_UN)
        closeDescriptor(descriptor)
    }

    /// The session uuid a slot names.
    private static func text(of slot: UnsafeMutablePointer<rewind_crash_slot>) -> String {
        CrashRecord(slot.pointee).session
    }

    /// Copies `text` into a fixed C array, NUL-terminated, cut to fit.
    private static func copy<T>(_ text: String, into field: inout T) {
        withUnsafeMutableBytes(of: &field) { raw in
            let bytes = Array(text.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }

    // MARK: The next run

    /// Writes what the dead journals in `folder` say into their sessions of the log at `path`
    /// (``CrashRecord/write(into:path:)``) and removes each journal it is done with; another
    /// app's journals stay for its own log.
    static func recover(in folder: String?, path: String, writer: LogWriter, server: String? = nil) {
        guard let folder else { return }
        for (journal, record) in dead(in: folder) {
            guard let held = try? record.write(into: writer, path: path, server: server), held else { continue }
            unlink(journal)
        }
    }

    /// The journals in `folder` whose process is gone (their `flock` is free), each read back;
    /// a file that is no journal is left alone.
    static func dead(in folder: String) -> [(path: String, record: CrashRecord)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: [(String, CrashRecord)] = []
        for name in names.sorted() where name.hasSuffix(".crash") {
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer {
                // Unlocked first, as a journal's close does (a spawning child's copy of the
                // descriptor would keep the lock).
                _ = flock(fd, LOCK_UN)
                closeDescriptor(fd)
            }
            // Held: its process is alive (this one's, or another run's still going).
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            var slot = rewind_crash_slot()
            let size = MemoryLayout<rewind_crash_slot>.size
            let read = withUnsafeMutableBytes(of: &slot) { readBytes(fd, $0.baseAddress, size) }
            guard read == size, slot.magic == REWIND_CRASH_MAGIC, slot.version == REWIND_CRASH_VERSION else { continue }
            // A journal names its session in its file name and in its slot: both, or it is no
            // journal of Rewind's.
            let record = CrashRecord(slot)
            guard name == record.session + ".crash", UUID(uuidString: record.session) != nil else { continue }
            found.append((path, record))
        }
        return found
    }
}

/// `close(2)`, named apart from ``CrashJournal/close(removing:)``.
func closeDescriptor(_ fd: Int32) {
    #if canImport(Darwin)
    _ = Darwin.close(fd)
    #else
    _ = Glibc.close(fd)
    #endif
}

/// `read(2)`.
func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(fd, buffer, count)
    #else
    Glibc.read(fd, buffer, count)
    #endif
}
