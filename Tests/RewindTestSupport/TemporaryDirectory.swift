import Foundation

/// A fresh directory under the system's temporary folder, removed by ``cleanup()`` or, at the
/// latest, when the value is released.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        cleanup()
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `contents` to the file `name` in the directory and returns its path.
    public func file(_ name: String, contents: String) throws -> String {
        let path = path(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every byte of every file in the directory (the log, its WAL and shared memory).
    public func allBytes() throws -> Data {
        var data = Data()
        // Every file, in the folders below too (a log's crash journals are in one).
        let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
        while let file = files?.nextObject() as? URL {
            guard (try file.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            data.append(try Data(contentsOf: file))
        }
        return data
    }

    public func cleanup() {
        try? FileManager.default.removeItem(at: url)
    }
}
