import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// The public surface of the libraries apps import, declaration by declaration, as the compiler
/// sees it (`swift-symbolgraph-extract` on this build's modules), against the list kept in
/// `Tests/PublicAPI/MODULE.txt`: a public declaration that appears or disappears
/// fails this test until the list changes with it (and the CHANGELOG says so when it breaks an
/// app). `REWIND_UPDATE_PUBLIC_API=1 swift test --filter PublicSurfaceTests` writes the lists anew.
@Suite("The public surface of Rewind and RewindRecorder, declaration by declaration", .ownThreads)
struct PublicSurfaceTests {
    static let modules = ["Rewind", "RewindRecorder"]

    /// The triple this build was made for (the tests run where they were built).
    static var target: String {
        #if arch(arm64)
        let cpu = "aarch64"
        #else
        let cpu = "x86_64"
        #endif
        #if os(Linux)
        return cpu + "-unknown-linux-gnu"
        #else
        return (cpu == "aarch64" ? "arm64" : cpu) + "-apple-macosx14.0"
        #endif
    }

    /// Each public declaration the module itself declares (not what a protocol's extension in
    /// another module adds): `Path.to.name (kind)`, sorted.
    static func surface(of module: String, in folder: URL) throws -> [String] {
        let modules = CLIRunner.locate("Modules").path
        let result = try RecordedBugEndToEndTests.run("swift-symbolgraph-extract", [
            "-module-name", module, "-I", modules, "-target", Self.target,
            "-minimum-access-level", "public", "-output-dir", folder.path,
            "-Xcc", "-fmodule-map-file=" + CompileErrorTests.repository.appendingPathComponent("Sources/CSQLite/module.modulemap").path,
            "-Xcc", "-fmodule-map-file=" + CompileErrorTests.repository.appendingPathComponent("Sources/CLibWebSockets/module.modulemap").path,
            "-Xcc", "-fmodule-map-file=" + CompileErrorTests.crashModuleMap,
        ], in: folder)
        try #require(result.status == 0, "swift-symbolgraph-extract: \(result.output.suffix(2_000))")
        let graph = try JSONValue(parsing: Array(Data(contentsOf: folder.appendingPathComponent("\(module).symbols.json"))))
        var lines = Set<String>()
        for symbol in graph["symbols"]?.arrayValue ?? [] {
            guard symbol["accessLevel"]?.stringValue == "public",
                  let precise = symbol["identifier"]?["precise"]?.stringValue, !precise.contains("::SYNTHESIZED::"),
                  let path = symbol["pathComponents"]?.arrayValue?.compactMap(\.stringValue),
                  let kind = symbol["kind"]?["identifier"]?.stringValue else { continue }
            lines.insert(path.joined(separator: ".") + " (" + kind.replacingOccurrences(of: "swift.", with: "") + ")")
        }
        return lines.sorted()
    }

    @Test("each module's public declarations are exactly the kept list", arguments: modules)
    func surfaceIsKept(module: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let now = try Self.surface(of: module, in: folder.url)
        #expect(now.count > 50, "\(now)")
        let file = CompileErrorTests.repository.appendingPathComponent("Tests/PublicAPI/\(module).txt")
        if ProcessInfo.processInfo.environment["REWIND_UPDATE_PUBLIC_API"] == "1" {
            try Data((now.joined(separator: "\n") + "\n").utf8).write(to: file)
        }
        let kept = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let added = now.filter { !kept.contains($0) }
        let removed = kept.filter { !now.contains($0) }
        #expect(added.isEmpty && removed.isEmpty,
                "\(module)'s public surface changed: added \(added), removed \(removed); if meant, run REWIND_UPDATE_PUBLIC_API=1 swift test --filter PublicSurfaceTests and say it in CHANGELOG.md")
    }
}
