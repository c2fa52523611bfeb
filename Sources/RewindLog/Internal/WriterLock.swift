import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one-writer rule: a log has one writer at a time, across processes and within one.
///
/// SQLite lets two connections write one file in turn, and two `rewind serve` on one log then
/// each believed its own idea of a session's next seq. The writer takes an exclusive `flock`
/// on `PATH-writer` (beside SQLite's own `-wal` and `-shm`, and independent of SQLite's `fcntl`
/// locks, so readers are untouched) and writes its pid and command into it, so that a second
/// writer can name the first. The kernel drops the lock when the process ends, however it ends.
final class WriterLock: @unchecked Sendable {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The lock file of the log at `path`.
    static func lockPath(for path: String) -> String { path + "-writer" }

    /// Takes the lock, or says who holds it. A folder that does not exist is left to SQLite's
    /// own error (`nil`, no lock): nothing can be written there anyway.
    static func acquire(for path: String) throws(LogError) -> WriterLock? {
        let lockPath = lockPath(for: path)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                return nil
            default:
                throw LogError(kind: .readOnly, message: "cannot create \(lockPath) beside it: \(String(cString: strerror(code)))",
                               path: path)
            }
        }
        // A probe (`isHeld`) holds the lock shared for a moment: a few tries ride over it.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            tries += 1
            if code == EWOULDBLOCK && tries < 5 {
                usleep(2_000)
                continue
            }
            let holder = code == EWOULDBLOCK ? Self.holder(fd) : nil
            close(fd)
            guard code == EWOULDBLOCK else {
                throw LogError(kind: .readOnly, message: "cannot lock \(lockPath): \(String(cString: strerror(code)))", path: path)
            }
            throw LogError(kind: .writerBusy(holder: holder), message: "", path: path)
        }
        // Ours now: say who we are, for the next one.
        let name = CommandLine.arguments.prefix(2).enumerated().map { index, word in
            index == 0 ? URL(fileURLWithPath: word).lastPathComponent : word
        }.joined(separator: " ")
        let text = Array("pid \(getpid()): \(name)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return WriterLock(descriptor: fd)
    }

    /// Whether a writer holds the log at `path` now (any process, this one included). Asks with a
    /// shared lock taken and let go at once, so it never waits; a writer starting in that moment
    /// tries again (``acquire(for:)``).
    static func isHeld(for path: String) -> Bool {
        let fd = open(lockPath(for: path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        _ = flock(fd, LOCK_UN)
        return false
    }

    /// What the holder wrote into the lock file: `pid N: command`, or `nil`.
    private static func holder(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // Only what a writer writes: one short line of printable characters.
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }) else {
            return nil
        }
        return text
    }

    /// Lets the lock go (the file stays; the next writer overwrites it).
    func release() {
        guard descriptor >= 0 else { return }
        // Unlocked before it is closed: a child that another thread is spawning right now holds
        // a copy of the descriptor until it execs, and closing ours alone would leave the lock
        // held by that copy.
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
