import Foundation

/// A fresh directory removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Every byte of every file in the directory (the log, its WAL and shared memory).
    func allBytes() throws -> Data {
        var data = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            data.append(try Data(contentsOf: url.appendingPathComponent(name)))
        }
        return data
    }
}
