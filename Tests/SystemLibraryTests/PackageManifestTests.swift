import Foundation
import Testing
import RewindTestSupport

/// What `swift package dump-package` says about the manifest: what an iOS app that adds Rewind
/// would link, read from the manifest itself (no Apple SDK runs here).
struct ManifestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

@Suite("The package manifest, for Apple platforms", .ownThreads)
struct PackageManifestTests {
    struct Manifest: @unchecked Sendable {
        let json: [String: Any]

        /// `swift package dump-package`, run once for the suite, without blocking a thread while
        /// it runs (it compiles the manifest, which takes seconds on a fresh clone).
        static func load() async throws -> Manifest {
            try await shared.value
        }

        private static let shared = Task<Manifest, any Error> {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-dump-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            // Output to a file, not a pipe, so a large manifest can never block the child.
            let outputURL = scratch.appendingPathComponent("manifest.json")
            guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
                throw ManifestError(message: "cannot create \(outputURL.path)")
            }
            let output = try FileHandle(forWritingTo: outputURL)
            // A scratch path of its own: the running `swift test` holds the lock on .build.
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                do {
                    _ = try Subprocess("/usr/bin/env", ["swift", "package", "--package-path", root.path, "--scratch-path",
                                                        scratch.appendingPathComponent("build").path, "dump-package"],
                                       output: .descriptor(output.fileDescriptor), error: .null) { continuation.resume(returning: $0) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            try output.close()
            guard status == 0 else { throw ManifestError(message: "swift package dump-package exited with \(status)") }
            let data = try Data(contentsOf: outputURL)
            guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ManifestError(message: "dump-package printed no JSON object")
            }
            return Manifest(json: json)
        }

        var targets: [[String: Any]] { json["targets"] as? [[String: Any]] ?? [] }

        func target(_ name: String) -> [String: Any]? {
            targets.first { $0["name"] as? String == name }
        }

        /// The targets `name` links on `platform`, itself included, honoring platform conditions.
        func closure(of name: String, on platform: String) -> Set<String> {
            var seen: Set<String> = []
            var stack = [name]
            while let next = stack.popLast() {
                guard seen.insert(next).inserted, let target = target(next) else { continue }
                for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                    // Each is {"byName"|"target"|"product": [name, (package,) condition]}.
                    guard let (kind, value) = dependency.first, let parts = value as? [Any],
                          let dependencyName = parts.first as? String else { continue }
                    let condition = parts.last as? [String: Any]
                    if let platforms = condition?["platformNames"] as? [String], !platforms.contains(platform) { continue }
                    if kind == "product" { seen.insert("product:\(dependencyName)") } else { stack.append(dependencyName) }
                }
            }
            return seen
        }
    }

    @Test("neither RewindRecorder nor Rewind links libwebsockets on iOS or macOS; on Linux the recorder does")
    func noLibWebSocketsOnApplePlatforms() async throws {
        let manifest = try await Manifest.load()
        for product in ["RewindRecorder", "Rewind"] {
            for platform in ["ios", "macos"] {
                let linked = manifest.closure(of: product, on: platform)
                #expect(!linked.contains("CLibWebSockets"), "\(product) links CLibWebSockets on \(platform)")
                #expect(!linked.contains("RewindWebSocket"), "\(product) links RewindWebSocket on \(platform)")
                #expect(linked.contains("CSQLite"), "\(product) should link SQLite on \(platform)")
            }
            // The condition is what keeps it out: on Linux the libwebsockets transport is linked.
            #expect(manifest.closure(of: product, on: "linux").contains("CLibWebSockets"))
        }
        // Rewind brings the recorder with it.
        #expect(manifest.closure(of: "Rewind", on: "ios").contains("RewindRecorder"))
    }

    @Test("CSQLite asks no pkg-config and links sqlite3; CLibWebSockets names apt and Homebrew")
    func systemLibraries() async throws {
        let manifest = try await Manifest.load()
        let sqlite = try #require(manifest.target("CSQLite"))
        #expect(sqlite["type"] as? String == "system")
        #expect(sqlite["pkgConfig"] == nil)
        let moduleMap = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CSQLite/module.modulemap")
        #expect(try String(contentsOf: moduleMap, encoding: .utf8).contains("link \"sqlite3\""))
        let websockets = try #require(manifest.target("CLibWebSockets"))
        let providers = websockets["providers"] as? [[String: Any]] ?? []
        #expect(providers.contains { $0["brew"] != nil })
        #expect(providers.contains { $0["apt"] != nil })
    }

    @Test("iOS 17 and macOS 14; RewindRecorder is a product; the demo and the fault child are not")
    func platformsAndProducts() async throws {
        let manifest = try await Manifest.load()
        let platforms = (manifest.json["platforms"] as? [[String: Any]] ?? []).map {
            "\($0["platformName"] as? String ?? "") \($0["version"] as? String ?? "")"
        }
        #expect(Set(platforms) == ["ios 17.0", "macos 14.0"])
        let products = Set((manifest.json["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        #expect(products.isSuperset(of: ["RewindRecorder", "Rewind", "rewind"]))
        #expect(products.isDisjoint(with: ["RewindDemo", "rewind-fault-child", "RewindFaultChild"]))
    }
}
