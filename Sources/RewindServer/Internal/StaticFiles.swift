import Foundation
import RewindWebSocket

/// Serves the inspector page from one folder: known content types, `index.html` for a folder,
/// no listings, and nothing outside the folder (real paths are resolved, so `..`, encoded dots
/// and symlinks that lead out are all 404).
struct StaticFiles: Sendable {
    /// The folder's real path, or `nil` when there is none.
    let root: String?
    let configured: String?

    init(directory: String?) {
        configured = directory
        if let directory, let real = Self.realPath(directory) {
            var isDirectory: ObjCBool = false
            root = FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory) && isDirectory.boolValue ? real : nil
        } else {
            root = nil
        }
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "map": "application/json",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "woff2": "font/woff2",
        "txt": "text/plain; charset=utf-8",
    ]

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let root else {
            let looked = configured.map { " (looked for \($0))" } ?? ""
            return .text("the inspector page is not installed: no web folder\(looked); pass --web DIR\n", status: 404)
        }
        var path = request.path
        if path.isEmpty || path.hasSuffix("/") { path += "index.html" }
        let components = path.split(separator: "/")
        guard !components.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") || $0.contains("\\") }) else {
            return .notFound
        }
        var candidate = root + "/" + components.joined(separator: "/")
        guard var real = Self.realPath(candidate), real.hasPrefix(root + "/") || real == root else { return .notFound }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory) else { return .notFound }
        if isDirectory.boolValue {
            candidate = real + "/index.html"
            guard let index = Self.realPath(candidate), index.hasPrefix(root + "/") else { return .notFound }
            real = index
        }
        guard let data = FileManager.default.contents(atPath: real) else { return .notFound }
        let ext = (real as NSString).pathExtension.lowercased()
        var headers: HTTPHeaders = ["X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"]
        let type = Self.contentTypes[ext] ?? "application/octet-stream"
        if type.hasPrefix("text/html") {
            headers.add("Content-Security-Policy", Self.contentSecurityPolicy(host: request.headers["host"]))
            headers.add("X-Frame-Options", "DENY")
        }
        return HTTPResponse(status: 200, contentType: type, headers: headers, body: Array(data))
    }

    /// Scripts, styles and sockets from this server only; nothing inline, no frames.
    static func contentSecurityPolicy(host: String?) -> String {
        var connect = "'self'"
        if let host, !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".:-[]".contains($0) }) {
            connect += " ws://\(host)"
        }
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src \(connect); object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
