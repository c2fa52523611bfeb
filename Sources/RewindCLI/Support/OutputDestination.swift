import Foundation

/// Where a command writes a long output: standard output, or a file that appears only once it
/// is complete (written beside it under a temporary name, then renamed over it).
final class OutputDestination {
    private let handle: FileHandle
    /// The file renamed into place at the end (`nil`: written in place, or standard output).
    private let path: String?
    /// The name the command was given, for its sentences.
    private let named: String?
    private let temporaryPath: String?
    private var committed = false

    /// Standard output for `nil` or `-`; else the file at `path`, through a temporary file
    /// renamed over it when it is a regular file or new, written in place when it is not.
    init(path: String?) throws {
        guard let path, path != "-" else {
            handle = FileHandle.standardOutput
            self.path = nil
            named = nil
            temporaryPath = nil
            return
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            // Not a regular file (a device such as /dev/null, a FIFO, /dev/stdout, a terminal):
            // written in place. Renaming a file over it would replace the node itself, for every
            // process on the machine.
            guard info.st_mode & S_IFMT != S_IFDIR else { throw CLIError("cannot write \(path): it is a folder; name a file", code: 2) }
            guard let opened = FileHandle(forWritingAtPath: path) else {
                throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))", code: 2)
            }
            handle = opened
            self.path = nil
            self.named = path
            temporaryPath = nil
            return
        }
        // A symbolic link to a file: the file it names is replaced, and the link stays.
        let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).rewind-\(ProcessInfo.processInfo.processIdentifier)").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let opened = FileHandle(forWritingAtPath: temporary) else {
            throw CLIError("cannot write \(path): its folder does not exist or is not writable", code: 2)
        }
        handle = opened
        self.path = url.path
        named = path
        temporaryPath = temporary
    }

    deinit {
        if !committed, let temporaryPath {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporaryPath)
        }
    }

    /// Writes `bytes`.
    func write(_ bytes: [UInt8]) throws {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw CLIError("cannot write \(named ?? "standard output"): \(error.localizedDescription)", code: 2)
        }
    }

    /// Makes the file appear under its name (for standard output or a file written in place,
    /// nothing to do).
    func commit() throws {
        committed = true
        guard let path, let temporaryPath else { return }
        try? handle.close()
        // rename(2) replaces an existing file in one step: readers see the old file or the new one.
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw CLIError("cannot write \(path): \(reason)", code: 2)
        }
    }
}
