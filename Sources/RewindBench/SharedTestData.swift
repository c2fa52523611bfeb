import Foundation

/// Finds `shared/testdata`: `$REWIND_SHARED_TESTDATA`, else the first `shared/testdata` above the
/// current directory or above the executable (so a git worktree finds it too).
enum SharedTestData {
    struct NotFound: Error, CustomStringConvertible {
        var description: String {
            "shared/testdata not found above \(FileManager.default.currentDirectoryPath); set REWIND_SHARED_TESTDATA"
        }
    }

    /// The `shared/testdata` folder that holds `child`, or `nil` when there is none.
    static func directory(containing child: String) -> URL? {
        let fm = FileManager.default
        if let override = ProcessInfo.processInfo.environment["REWIND_SHARED_TESTDATA"] {
            let url = URL(fileURLWithPath: override)
            return fm.fileExists(atPath: url.appendingPathComponent(child).path) ? url : nil
        }
        var starts = [URL(fileURLWithPath: fm.currentDirectoryPath)]
        if let executable = Bundle.main.executableURL {
            starts.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for start in starts {
            var dir = start.standardizedFileURL
            while true {
                let candidate = dir.appendingPathComponent("shared/testdata")
                if fm.fileExists(atPath: candidate.appendingPathComponent(child).path) { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return nil
    }

    /// The `shared/testdata` folder, or a ``NotFound`` error.
    static func root() throws -> URL {
        guard let root = directory(containing: "") else { throw NotFound() }
        return root
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root().appendingPathComponent(relativePath)))
    }
}
