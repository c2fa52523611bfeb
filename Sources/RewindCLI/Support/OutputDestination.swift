import Foundation

/// Where a command writes a long output: standard output, or a file that appears only once it
/// is complete (written beside it under a temporary name, then renamed over it).
final class OutputDestination {
    private let handle: FileHandle
    private let path: String?
    private let temporaryPath: String?
    private var committed = false

    /// Standard output for `nil` or `-`, else the file at `path`.
    init(path: String?) throws {
        guard let path, path != "-" else {
            handle = FileHandle.standardOutput
            self.path = nil
            temporaryPath = nil
            return
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).rewind-\(ProcessInfo.processInfo.processIdentifier)").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let opened = FileHandle(forWritingAtPath: temporary) else {
            throw CLIError("cannot write \(path): its folder does not exist or is not writable", code: 2)
        }
        handle = opened
        self.path = path
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
            throw CLIError("cannot write \(path ?? "standard output"): \(error.localizedDescription)", code: 2)
        }
    }

    /// Makes the file appear under its name (for standard output, nothing to do).
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
