import Foundation
import RewindWebSocket

/// Serves the inspector page: from a folder (`--web DIR`), or the page built into the binary
/// (`web/` at build time, ``EmbeddedWeb``). Known content types, `index.html` for a folder, no
/// listings, and nothing outside the page: a folder's real paths are resolved, so `..`, encoded
/// dots and symlinks that lead out are all 404.
struct StaticFiles: Sendable {
    enum Source: Sendable, Equatable {
        /// A folder's real path.
        case folder(String)
        /// The page built into the binary.
        case builtIn
        /// A folder that was asked for and is not there.
        case missing(String)
    }

    let source: Source
    /// Served over TLS: the page's sockets are `wss`.
    let secure: Bool

    /// The folder at `directory`, or the built-in page when `directory` is `nil`.
    init(directory: String?, secure: Bool = false) {
        self.secure = secure
        guard let directory else {
            source = .builtIn
            return
        }
        var isDirectory: ObjCBool = false
        if let real = Self.realPath(directory), FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue {
            source = .folder(real)
        } else {
            source = .missing(directory)
        }
    }

    /// The built-in page's files by path (`index.html`, `js/main.js`), decoded once.
    static let builtIn: [String: [UInt8]] = EmbeddedWeb.files.reduce(into: [:]) { files, entry in
        if let data = Data(base64Encoded: entry.value) { files[entry.key] = Array(data) }
    }

    /// Why no page can be served from `directory` (the built-in page when `nil`), in one
    /// sentence; `nil` when it can.
    static func problem(directory: String?) -> String? {
        switch StaticFiles(directory: directory).source {
        case .builtIn:
            return builtIn["index.html"] == nil
                ? "this build of rewind has no inspector page built in (web/ had no index.html when it was built); pass --web DIR" : nil
        case .missing(let path):
            return "\(path) is not a folder"
        case .folder(let root):
            return FileManager.default.fileExists(atPath: root + "/index.html") ? nil : "\(root) has no index.html"
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
        var path = request.path
        if path.isEmpty || path.hasSuffix("/") { path += "index.html" }
        let components = path.split(separator: "/")
        guard !components.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") || $0.contains("\\") }) else {
            return .notFound
        }
        switch source {
        case .missing(let directory):
            return .text("the inspector page is not installed: \(directory) is not a folder; start rewind serve without --web to serve the page built into it\n", status: 404)
        case .builtIn:
            let relative = components.joined(separator: "/")
            guard let body = Self.builtIn[relative] ?? Self.builtIn[relative + "/index.html"] else {
                if Self.builtIn.isEmpty {
                    return .text("the inspector page is not installed: this build of rewind has none built in; pass --web DIR\n", status: 404)
                }
                return .notFound
            }
            let name = Self.builtIn[relative] != nil ? relative : relative + "/index.html"
            return response(body, name: name, request: request)
        case .folder(let root):
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
            return response(Array(data), name: real, request: request)
        }
    }

    /// A page file's response: its content type by `name`'s extension, and for HTML the strict
    /// Content-Security-Policy.
    private func response(_ body: [UInt8], name: String, request: HTTPRequest) -> HTTPResponse {
        let ext = (name as NSString).pathExtension.lowercased()
        var headers: HTTPHeaders = ["X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"]
        let type = Self.contentTypes[ext] ?? "application/octet-stream"
        if type.hasPrefix("text/html") {
            headers.add("Content-Security-Policy", Self.contentSecurityPolicy(host: request.headers["host"], secure: secure))
            headers.add("X-Frame-Options", "DENY")
        }
        return HTTPResponse(status: 200, contentType: type, headers: headers, body: body)
    }

    /// Scripts, styles and sockets from this server only; nothing inline, no frames.
    /// The page's own socket is named as well as `'self'`, which older browsers do not stretch
    /// from `http`/`https` to `ws`/`wss`.
    static func contentSecurityPolicy(host: String?, secure: Bool = false) -> String {
        var connect = "'self'"
        if let host, !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".:-[]".contains($0) }) {
            connect += " \(secure ? "wss" : "ws")://\(host)"
        }
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src \(connect); object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
