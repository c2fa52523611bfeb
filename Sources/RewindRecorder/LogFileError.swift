import Foundation
import RewindLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a log file cannot be opened for recording, in one sentence naming the path and the
/// problem: a folder where the file should be, a folder that is missing or cannot be made, a
/// place that cannot be written.
public struct LogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }

    /// `~` and `~/…` are the home folder; any other path is kept as written.
    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (path as NSString).expandingTildeInPath
    }

    /// Checks `path` before SQLite opens it, makes its folder when asked (excluded from backup
    /// in an iOS app's container) and creates the file when missing, so that what fails is said
    /// as it is rather than as "no log here".
    static func prepare(_ path: String, createFolder: Bool) throws(LogFileError) {
        guard !path.isEmpty else { throw LogFileError("the log file's path is empty; name a file such as /tmp/app.db") }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                let example = (path as NSString).appendingPathComponent("rewind.db")
                throw LogFileError("\(path) is a folder, not a log file; name a file in it, such as \(example)")
            }
            guard manager.isWritableFile(atPath: path) else {
                throw LogFileError("cannot write the log file \(path): permission denied")
            }
            return
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        if manager.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw LogFileError("cannot create the log file \(path): \(folder) is a file, not a folder")
            }
        } else if createFolder {
            do {
                try DefaultLog.prepareFolder(for: path)
            } catch {
                throw LogFileError("cannot create the folder \(folder) for the log file \(path): \(reason(error, near: folder))")
            }
        } else {
            throw LogFileError("cannot create the log file \(path): the folder \(folder) does not exist")
        }
        // An empty file is a new SQLite database; making it here says why it cannot be made.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if fd < 0 {
            let code = errno
            if code == EEXIST { return }
            throw LogFileError("cannot create the log file \(path): \(String(cString: strerror(code)))")
        }
        close(fd)
    }

    /// What stopped a folder from being made: a file in its way, or the system's reason.
    private static func reason(_ error: any Error, near folder: String) -> String {
        // Walk up to the part of the path that exists: a file there blocks the folder.
        var ancestor = folder
        var isDirectory: ObjCBool = false
        while !ancestor.isEmpty, ancestor != "/" {
            if FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(ancestor) is a file, not a folder" }
                break
            }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
