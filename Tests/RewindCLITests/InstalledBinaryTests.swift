import Foundation
@testable import RewindCLI
import Testing
import RewindTestSupport

/// `rewind` as a user installs it: a copy alone in a folder on the `PATH`, run by its bare name
/// from anywhere, serves the inspector page built into it; `--version`; `make install` and
/// `make uninstall`.
@Suite("installed rewind", .ownThreads)
struct InstalledBinaryTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every file of the repository's web/ (hidden ones left out), by path.
    static func webFiles() throws -> [String: [UInt8]] {
        let root = repository.appendingPathComponent("web").path
        var files: [String: [UInt8]] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = walker.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        return files
    }

    @Test("a copy alone in another folder, run by its bare name through a PATH symlink from another directory, serves web/ byte for byte")
    func copiedBinaryServesItsPage() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let bin = dir.url.appendingPathComponent("bin")
        let elsewhere = dir.url.appendingPathComponent("work")
        let store = dir.url.appendingPathComponent("opt")
        for folder in [bin, elsewhere, store] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        // The copy lives in opt/, the PATH holds a symlink to it: argv[0] is the bare name
        // `rewind`, and neither folder is near the checkout.
        let copy = store.appendingPathComponent("rewind")
        // Copied by cp, not by this process: a file this process held open for writing would be
        // inherited by a child another test forks meanwhile, and exec would fail (ETXTBSY).
        let copied = try CLIRunner.run([CLIRunner.executable.path, copy.path], program: URL(fileURLWithPath: "/bin/cp"))
        try #require(copied.status == 0, "\(copied.stderr)")
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("rewind"), withDestinationURL: copy)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":/usr/bin:/bin"
        let db = dir.url.appendingPathComponent("rewind.db").path
        let serve = try ServeProcess(["--port", "0", "--db", db], executable: "rewind", environment: environment, directory: elsewhere.path)
        defer {
            serve.signal(SIGTERM)
            _ = serve.waitForExit()
        }
        let port = try #require(serve.port(), "\(serve.text)")
        #expect(!serve.text.contains("no inspector page"), "\(serve.text)")

        let web = try Self.webFiles()
        #expect(web["index.html"] != nil && web["js/main.js"] != nil)
        for (path, bytes) in web.sorted(by: { $0.key < $1.key }) {
            let response = try HTTPGet.fetch(host: "127.0.0.1", port: port, path: "/" + path, token: nil, timeout: 20)
            #expect(response.status == 200, "\(path)")
            let same = response.body == bytes
            #expect(same, "/\(path) served (\(response.body.count) bytes) differs from web/\(path) (\(bytes.count) bytes)")
        }
        let index = try HTTPGet.fetch(host: "127.0.0.1", port: port, path: "/", token: nil, timeout: 20)
        let sameIndex = index.body == web["index.html"]
        #expect(sameIndex, "/ is not web/index.html")
        #expect(try HTTPGet.fetch(host: "127.0.0.1", port: port, path: "/missing.js", token: nil, timeout: 20).status == 404)
    }

    @Test("--web serves a folder; one that is not a folder exits 2; a folder without index.html is said at start")
    func webFolder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("rewind.db").path
        let missing = try CLIRunner.run(["serve", "--port", "0", "--db", db, "--web", dir.url.appendingPathComponent("nope").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("is not a folder"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1)

        let page = dir.url.appendingPathComponent("page")
        try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
        let empty = try ServeProcess(["--port", "0", "--db", db, "--web", page.path])
        #expect(empty.waitForOutput("no inspector page to serve: \(page.path) has no index.html"), "\(empty.text)")
        empty.signal(SIGTERM)
        #expect(empty.waitForExit() == 0)

        try Data("<!doctype html><title>mine</title>".utf8).write(to: page.appendingPathComponent("index.html"))
        let serve = try ServeProcess(["--port", "0", "--db", db, "--web", page.path])
        defer {
            serve.signal(SIGTERM)
            _ = serve.waitForExit()
        }
        let port = try #require(serve.port())
        #expect(serve.text.contains("the page is served from \(page.path)"))
        #expect(!serve.text.contains("no inspector page"))
        let index = try HTTPGet.fetch(host: "127.0.0.1", port: port, path: "/", token: nil, timeout: 20)
        #expect(String(decoding: index.body, as: UTF8.self) == "<!doctype html><title>mine</title>")
    }

    @Test("--version prints the version, and the commit when built in a git checkout")
    func version() throws {
        let result = try CLIRunner.run(["--version"])
        #expect(result.status == 0)
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("rewind \(RewindVersion.number)"), "\(line)")
        let parts = RewindVersion.number.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil })
        // This test runs in the checkout the binary was built in.
        if FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(".git").path) {
            let commit = try #require(line.split(separator: "(commit ").last.map { String($0.dropLast()) }, "\(line)")
            #expect(commit.count == 12 && commit.allSatisfy(\.isHexDigit), "\(line)")
        }
        #expect(RewindVersion.line(commit: nil) == "rewind \(RewindVersion.number)")
        #expect(RewindVersion.line(commit: String(repeating: "ab", count: 20)) == "rewind \(RewindVersion.number) (commit abababababab)")
    }

    @Test("make install puts rewind in PREFIX/bin, it runs from there, make uninstall removes it")
    func makeInstall() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let prefix = dir.url.appendingPathComponent("prefix with space").path
        // REWIND_BIN: the binary these tests run, instead of a release build made here.
        let make = ["-C", Self.repository.path, "--no-print-directory", "PREFIX=\(prefix)", "REWIND_BIN=\(CLIRunner.executable.path)"]
        let install = try CLIRunner.run(make + ["install"], program: URL(fileURLWithPath: "/usr/bin/make"))
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let installed = prefix + "/bin/rewind"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        let version = try CLIRunner.run(["--version"], program: URL(fileURLWithPath: installed))
        #expect(version.stdout.hasPrefix("rewind \(RewindVersion.number)"))

        let uninstall = try CLIRunner.run(make + ["uninstall"], program: URL(fileURLWithPath: "/usr/bin/make"))
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        #expect(!FileManager.default.fileExists(atPath: installed))
    }
}
