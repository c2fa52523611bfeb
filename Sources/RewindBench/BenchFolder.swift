import Foundation

/// A temporary folder for one benchmark group's files, removed when the group lets it go;
/// ``freshPath()`` names a new log file in it for each run, so no run reads another's pages.
final class BenchFolder {
    let url: URL
    private var runs = 0

    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path no run has used: `runN.db`.
    func freshPath() -> String {
        runs += 1
        return url.appendingPathComponent("run\(runs).db").path
    }
}
