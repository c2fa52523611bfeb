import Foundation

/// Finds `shared/testdata`: `$REWIND_SHARED_TESTDATA`, else the first `shared/testdata` in the
/// current directory or one of its ancestors (so a git worktree finds it too).
enum SharedTestData {
    struct NotFound: Error, CustomStringConvertible {
        var description: String {
            "shared/testdata not found above \(FileManager.default.currentDirectoryPath); set REWIND_SHARED_TESTDATA"
        }
    }

    static func root() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["REWIND_SHARED_TESTDATA"] {
            return URL(fileURLWithPath: override)
        }
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            let candidate = dir.appendingPathComponent("shared/testdata")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            if dir.path == "/" { throw NotFound() }
            dir = dir.deletingLastPathComponent()
        }
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root().appendingPathComponent(relativePath)))
    }
}
