import Foundation

/// The executables `swift build --build-tests` puts beside the test bundle (both live in
/// `.build/<triple>/<config>/`): `rewind` and the child apps the tests run.
public enum BuiltExecutable {
    /// The built `rewind`.
    public static let rewind = url("rewind")

    /// The executable `name` beside the test bundle (where it would be, when it is not there).
    public static func url(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.pathExtension == "xctest" { directory = directory.deletingLastPathComponent() }
        for candidate in [directory, Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return directory.appendingPathComponent(name)
    }
}
