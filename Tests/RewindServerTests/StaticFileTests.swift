import Foundation
import RewindServer
import Testing
import RewindTestSupport

@Suite("Static files", .ownThreads)
struct StaticFileTests {
    /// `<tmp>/web` with a page, a script, a style, a folder without index, and a symlink that
    /// leads out to `<tmp>/secret.txt`.
    static func site() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-site-\(UUID().uuidString)")
        let web = root.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>Rewind</title>".utf8).write(to: web.appendingPathComponent("index.html"))
        try Data("export const x = 1;".utf8).write(to: web.appendingPathComponent("app.mjs"))
        try Data("body{}".utf8).write(to: web.appendingPathComponent("style.css"))
        try Data("<svg/>".utf8).write(to: web.appendingPathComponent("logo.svg"))
        try Data("top secret".utf8).write(to: root.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("link.txt").path,
                                                   withDestinationPath: root.appendingPathComponent("secret.txt").path)
        try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("up").path, withDestinationPath: root.path)
        return root
    }

    @Test("pages come with their content types and a strict CSP")
    func serves() throws {
        let root = try Self.site()
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try ServerFixture { $0.webDirectory = root.appendingPathComponent("web").path }
        let index = try HTTPResult.get("/", port: fixture.port)
        #expect(index.status == 200)
        #expect(index.header("content-type") == "text/html; charset=utf-8")
        let csp = try #require(index.header("content-security-policy"))
        #expect(csp.contains("default-src 'self'"))
        #expect(csp.contains("connect-src 'self' ws://127.0.0.1:\(fixture.port)"))
        #expect(try HTTPResult.get("/app.mjs", port: fixture.port).header("content-type") == "text/javascript; charset=utf-8")
        #expect(try HTTPResult.get("/style.css", port: fixture.port).header("content-type") == "text/css; charset=utf-8")
        #expect(try HTTPResult.get("/logo.svg", port: fixture.port).header("content-type") == "image/svg+xml")
    }

    @Test("no listings and no way out", arguments: ["/empty/", "/empty", "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt",
                                                     "/link.txt", "/up/secret.txt", "/missing.html", "/..%2fsecret.txt"])
    func refuses(_ target: String) throws {
        let root = try Self.site()
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try ServerFixture { $0.webDirectory = root.appendingPathComponent("web").path }
        let result = try HTTPResult.get(target, port: fixture.port)
        #expect(result.status == 404 || result.status == 403 || result.status == 400)
        #expect(!result.body.contains("top secret"))
    }

    @Test("a folder that is not there: a clear 404, and the problem said before start")
    func notInstalled() throws {
        let fixture = try ServerFixture { $0.webDirectory = "/nonexistent/web" }
        let result = try HTTPResult.get("/", port: fixture.port)
        #expect(result.status == 404)
        #expect(result.body.contains("not installed"))
        #expect(fixture.server.configuration.inspectorPageProblem == "/nonexistent/web is not a folder")
        let root = try Self.site()
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = RewindServerConfiguration(logPath: "/unused", webDirectory: root.appendingPathComponent("web/empty").path)
        #expect(configuration.inspectorPageProblem?.hasSuffix("has no index.html") == true)
        configuration.webDirectory = root.appendingPathComponent("web").path
        #expect(configuration.inspectorPageProblem == nil)
    }

    /// The repository's web/: every file but hidden ones, by path.
    static func repositoryWeb() throws -> [String: [UInt8]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web").path
        var files: [String: [UInt8]] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                  FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
        }
        return files
    }

    @Test("the page built in is web/ as it is, byte for byte (the build regenerates it)")
    func builtInIsWeb() throws {
        let web = try Self.repositoryWeb()
        #expect(web["index.html"] != nil)
        let builtIn = RewindServerConfiguration.builtInPage
        #expect(builtIn.keys.sorted() == web.keys.sorted())
        for (path, bytes) in web.sorted(by: { $0.key < $1.key }) {
            let same = builtIn[path] == bytes
            #expect(same, "web/\(path) (\(bytes.count) bytes) is not the page built in (\(builtIn[path]?.count ?? 0) bytes): swift build brings it in")
        }
        #expect(RewindServerConfiguration(logPath: "/unused").inspectorPageProblem == nil)
    }

    @Test("without a folder, the page built in is served, with its content types and CSP, and no way out")
    func servesBuiltIn() throws {
        let fixture = try ServerFixture()
        let web = try Self.repositoryWeb()
        let index = try HTTPResult.get("/", port: fixture.port)
        #expect(index.status == 200)
        #expect(index.header("content-type") == "text/html; charset=utf-8")
        #expect(index.header("content-security-policy")?.contains("default-src 'self'") == true)
        #expect(Array(index.body.utf8) == web["index.html"])
        let script = try HTTPResult.get("/js/main.js", port: fixture.port)
        #expect(script.header("content-type") == "text/javascript; charset=utf-8")
        #expect(Array(script.body.utf8) == web["js/main.js"])
        #expect(try HTTPResult.get("/style.css", port: fixture.port).header("content-type") == "text/css; charset=utf-8")
        #expect(try HTTPResult.get("/favicon.svg", port: fixture.port).header("content-type") == "image/svg+xml")
        for target in ["/js/", "/js", "/../web/index.html", "/%2e%2e/Package.swift", "/missing.html"] {
            let result = try HTTPResult.get(target, port: fixture.port)
            #expect(result.status == 404 || result.status == 403 || result.status == 400, "\(target): \(result.status)")
        }
    }
}
