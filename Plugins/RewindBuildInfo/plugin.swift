import Foundation
import PackagePlugin

/// Writes what `rewind` carries from its checkout into Swift source at build time, so that a
/// `rewind` copied alone anywhere still has it:
///
/// - for `RewindServer`, `EmbeddedWeb.swift`: every file under `web/` (the inspector page), byte
///   for byte, as base64 text by its path (`index.html`, `js/main.js`);
/// - for `RewindCLI`, `BuildCommit.swift`: the commit the checkout is at, read from `.git`
///   (no `git` needed; `nil` outside a git checkout).
///
/// SwiftPM runs the plugin when it plans a build, and it plans again only when the package or its
/// Swift files change, not when a file of `web/` does: the Makefile's builds remove the build
/// manifests first (`FRESH_PAGE`), so each plans and the plugin writes the page if it changed. It writes a file only when its text changes (so an unchanged page
/// compiles nothing), into a folder a prebuild command hands to the compiler.
/// The plugin does the work itself instead of running a tool built from this package: a tool
/// would be built with the package's flags, and `make fuzz`'s `-sanitize=fuzzer` makes an
/// executable that cannot run as a tool.
@main
struct RewindBuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated", isDirectory: true)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        switch target.name {
        case "RewindServer":
            let web = package.appendingPathComponent("web", isDirectory: true)
            try write(Self.embeddedWeb(files: try Self.files(under: web)), to: output.appendingPathComponent("EmbeddedWeb.swift"))
        case "RewindCLI":
            try write(Self.buildCommit(Self.commit(checkout: package)), to: output.appendingPathComponent("BuildCommit.swift"))
        default:
            Diagnostics.error("RewindBuildInfo applies to RewindServer and RewindCLI, not \(target.name)")
            return []
        }
        // The command does nothing: its folder is what matters (every Swift file in it is compiled).
        return [.prebuildCommand(displayName: "RewindBuildInfo for \(target.name)", executable: URL(fileURLWithPath: "/usr/bin/true"),
                                 arguments: [], outputFilesDirectory: output)]
    }

    /// Writes `text` unless the file already holds it.
    func write(_ text: String, to url: URL) throws {
        let data = Data(text.utf8)
        if (try? Data(contentsOf: url)) == data { return }
        try data.write(to: url, options: .atomic)
    }

    /// Every regular file under `folder` (hidden ones left out), as (path relative to it, bytes),
    /// sorted by path. An absent folder has none.
    static func files(under folder: URL) throws -> [(String, Data)] {
        let root = folder.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [(String, Data)] = []
        while let relative = walker.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            found.append((relative, try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    static func embeddedWeb(files: [(String, Data)]) -> String {
        var text = """
        // Generated at build time by Plugins/RewindBuildInfo from web/. Not committed; do not edit.

        /// The inspector page (`web/`) built into the binary: each file by its path, base64.
        enum EmbeddedWeb {
            static let files: [String: String] = [

        """
        for (path, data) in files {
            text += "        \(literal(path)): \"\(data.base64EncodedString())\",\n"
        }
        if files.isEmpty { text += "        :\n" }
        text += "    ]\n}\n"
        return text
    }

    static func buildCommit(_ commit: String?) -> String {
        """
        // Generated at build time by Plugins/RewindBuildInfo from .git. Not committed; do not edit.

        /// The commit this binary was built from, when it was built in a git checkout.
        enum BuildCommit {
            static let hash: String? = \(commit.map(literal) ?? "nil")
        }

        """
    }

    /// A Swift string literal for `text` (paths and hex digits: only quotes and backslashes need escaping).
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The commit `HEAD` names in the checkout at `folder`, read from its files: `.git` is a
    /// folder, or (a worktree, a submodule) a file `gitdir: PATH`; `HEAD` holds a hash or
    /// `ref: refs/heads/NAME`, found as a loose ref or in `packed-refs` of the common folder.
    static func commit(checkout folder: URL) -> String? {
        let dotGit = folder.appendingPathComponent(".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        var gitDir = dotGit
        if !isDirectory.boolValue {
            guard let text = read(dotGit), text.hasPrefix("gitdir:") else { return nil }
            let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitDir = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
        }
        var common = gitDir
        if let relative = read(gitDir.appendingPathComponent("commondir"))?.trimmingCharacters(in: .whitespacesAndNewlines) {
            common = relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : gitDir.appendingPathComponent(relative)
        }
        guard let head = read(gitDir.appendingPathComponent("HEAD"))?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard head.hasPrefix("ref:") else { return hash(head) }
        let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespaces)
        for base in [gitDir, common] {
            if let loose = read(base.appendingPathComponent(ref)).flatMap({ hash($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
                return loose
            }
        }
        for line in (read(common.appendingPathComponent("packed-refs")) ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[1] == ref { return hash(String(parts[0])) }
        }
        return nil
    }

    static func read(_ url: URL) -> String? {
        (try? Data(contentsOf: url)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `text` when it is a commit hash (40 or 64 hex digits).
    static func hash(_ text: String) -> String? {
        (text.count == 40 || text.count == 64) && text.allSatisfy(\.isHexDigit) ? text.lowercased() : nil
    }
}
