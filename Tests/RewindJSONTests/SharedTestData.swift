import Foundation

/// Locates `shared/testdata` beside the checkout (or beside any folder above it, so git worktrees
/// find it too); `REWIND_SHARED_TESTDATA` overrides the search.
enum SharedTestData {
    static let root: URL? = {
        if let override = ProcessInfo.processInfo.environment["REWIND_SHARED_TESTDATA"] {
            return URL(fileURLWithPath: override)
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/testdata")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    /// `true` when the shared test data is present (it is in CI).
    static var isAvailable: Bool { root != nil }

    static func url(_ relativePath: String) -> URL? {
        root?.appendingPathComponent(relativePath)
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        guard let url = url(relativePath) else { throw CocoaError(.fileNoSuchFile) }
        return Array(try Data(contentsOf: url))
    }
}
