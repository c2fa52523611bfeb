import Foundation
import RewindSupport

/// A child process started with `posix_spawn`, for tests, instead of Foundation's `Process`.
///
/// On Linux, `Process.run()` finds the highest open descriptor by reading `/proc/self/fd` and
/// copies 256 bytes out of each directory entry, past the end of the last one
/// (swift-corelibs-foundation issue 5472): when that entry ends at an unmapped page, the whole
/// test process is stopped by SIGSEGV. The tests hit it once they ran in parallel on threads of
/// their own, with many sockets and files open. This spawns the child directly and closes every
/// descriptor above 2 in it with `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later),
/// so no socket or file of the test process leaks into the child.
public final class Subprocess: @unchecked Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream {
        /// A pipe; this side's end is `standardInput`, `standardOutput` or `standardError`.
        case pipe
        /// `/dev/null`.
        case null
        /// The test process's own stream.
        case inherit
        /// This descriptor (a file the test opened, say); the child gets a copy.
        case descriptor(Int32)
        /// For standard error only: wherever standard output goes.
        case standardOutput
    }

    public let pid: pid_t
    /// The write end of the child's standard input, when it is `.pipe`.
    public let standardInput: FileHandle?
    /// The read end of the child's standard output, when it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error, when it is `.pipe`.
    public let standardError: FileHandle?

    /// How the child ended, once reaped (its exit code, or the signal's number, and which).
    private let status = Condition<(code: Int32, signalled: Bool)?>(nil)

    /// Starts `executable arguments…` with `environment` (the test process's when `nil`) in
    /// `directory` (the current one when `nil`). `onExit` is called once, on a thread of its own,
    /// with what ``terminationStatus`` then says.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                directory: String? = nil, input: Stream = .null, output: Stream = .inherit,
                error: Stream = .inherit, onExit: (@Sendable (Int32) -> Void)? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func opened(_ stream: Stream, as target: Int32) throws {
            switch stream {
            case .pipe:
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
                // Children spawned meanwhile close it anyway (see closeFrom3); others must not keep it.
                _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
                let (parent, child) = target == 0 ? (fds[1], fds[0]) : (fds[0], fds[1])
                parentEnds[Int(target)] = parent
                childEnds.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .inherit:
                #if canImport(Darwin)
                // POSIX_SPAWN_CLOEXEC_DEFAULT closes whatever is not named.
                posix_spawn_file_actions_addinherit_np(&actions, target)
                #endif
                break
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
        }
        try opened(input, as: 0)
        try opened(output, as: 1)
        try opened(error, as: 2)
        Self.closeFrom3(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and every signal at its default, whatever the
        // spawning thread blocks or ignores.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        #endif

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned: Int32
        if let directory {
            // Swift does not import glibc's posix_spawn_file_actions_addchdir_np: env(1) changes
            // the directory, then runs the executable in its place.
            let wrapped = (["/usr/bin/env", "-C", directory, executable] + arguments).map { strdup($0) } + [nil]
            defer { wrapped.forEach { free($0) } }
            spawned = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, wrapped, envp)
        } else {
            spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        }
        guard spawned == 0 else {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
        }
        pid = child
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }

        let spawnedPID = child
        let status = self.status
        startThread(named: "subprocess-reaper") {
            var raw: Int32 = 0
            while waitpid(spawnedPID, &raw, 0) == -1 && errno == EINTR {}
            // WIFEXITED, WEXITSTATUS and WTERMSIG, spelled out (the C macros do not import).
            let signalled = (raw & 0x7f) != 0
            let code = signalled ? raw & 0x7f : (raw >> 8) & 0xff
            status.update { $0 = (code, signalled) }
            onExit?(code)
        }
    }

    /// Adds "close every descriptor from 3 up" to `actions` (on Apple platforms the spawn flag
    /// `POSIX_SPAWN_CLOEXEC_DEFAULT` does it instead). For any test that spawns on its own.
    public static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
        #if os(Linux)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // RTLD_DEFAULT is the null handle on Linux.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        // An older C library: close what is open now, read from /proc/self/fd by pointer (the
        // name is read up to its end, never as a fixed-size copy).
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if let fd = Int32(name), fd > 2, fd != own { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        #endif
    }

    public var isRunning: Bool { status.value == nil }

    /// The exit status, or the number of the signal that ended the child; `nil` while it runs.
    public var terminationStatus: Int32? { status.value?.code }

    /// Whether a signal ended the child (`nil` while it runs).
    public var endedBySignal: Bool? { status.value?.signalled }

    /// Sends `signal` to the child, if it has not been reaped yet.
    public func signal(_ signal: Int32) {
        // Under the lock: a child reaped meanwhile gives its pid back, and it must not be signalled.
        status.withLock { if $0 == nil { kill(pid, signal) } }
    }

    /// Waits for the child to exit; returns ``terminationStatus``.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        _ = status.wait(for: { $0 != nil })
        return status.value!.code
    }

    /// Waits up to `timeout` seconds for the child to exit; `nil` if it has not.
    public func waitForExit(timeout: Double) -> Int32? {
        _ = status.wait(timeout: timeout) { $0 != nil }
        return status.value?.code
    }
}
