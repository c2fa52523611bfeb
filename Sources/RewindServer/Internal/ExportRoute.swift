import Foundation
import RewindLog
import RewindWebSocket

/// `GET /export/<session>?format=jsonl|redux-devtools`: the session as a download, written by
/// the same ``SessionExporter`` as `rewind export`, so the file is byte-identical to it. The
/// default format is the one the session was imported from, else JSONL, as on the command line.
struct ExportRoute: Sendable {
    static let prefix = "/export/"
    private let readers: ReaderPool

    init(logPath: String) throws(LogError) {
        // A reader connection of its own, so an export never competes with the inspectors'
        // query readers. The export is built in memory by a deferred response, on a thread of its
        // own, so the service thread keeps serving other connections meanwhile; two exports at
        // once take turns on this reader (Docs/Inspector.md, Export).
        readers = try ReaderPool(path: logPath, count: 1)
    }

    static func handles(_ request: HTTPRequest) -> Bool {
        request.path.hasPrefix(prefix)
    }

    /// Malformed requests are answered at once; the export itself is a deferred response.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let name = String(request.path.dropFirst(Self.prefix.count))
        guard !name.isEmpty, !name.contains("/") else {
            return .text("an export is /export/SESSION (an id, a uuid prefix or latest), and \(request.path) names none\n", status: 404)
        }
        var format: ImportFormat?
        if let asked = request.queryValue("format") {
            guard let known = ImportFormat(rawValue: asked) else {
                return .text("unknown export format '\(asked)': use format=jsonl or format=redux-devtools\n", status: 400)
            }
            format = known
        }
        return .deferred { [readers, format] in Self.export(name, format: format, readers: readers) }
    }

    /// The export, or the 404/500 that stands for it (a producer thread, not the service thread).
    private static func export(_ name: String, format: ImportFormat?, readers: ReaderPool) -> HTTPResponse {
        do {
            return try readers.withReader { reader in
                let session: SessionInfo
                do {
                    session = try reader.session(named: name)
                } catch let error as LogError where error.kind.isUnknownOrAmbiguous {
                    return .text("\(error.description)\n", status: 404)
                }
                let chosen = format ?? ImportMeta(sessionMeta: session.meta)?.format ?? .jsonl
                var body: [UInt8] = []
                try SessionExporter(reader: reader, session: session).write(chosen) { chunk in body += chunk }
                let ext = chosen == .jsonl ? "jsonl" : "json"
                let file = "rewind-session-\(session.id).\(chosen == .jsonl ? "" : "redux-devtools.")\(ext)"
                // Which session it is, for `rewind test --server` (which names the test after the
                // app, as it does from a log file): the app percent-encoded, so any name is one line.
                let app = session.app.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let headers: HTTPHeaders = ["Content-Disposition": "attachment; filename=\"\(file)\"",
                                            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                            "X-Rewind-Session-Id": String(session.id), "X-Rewind-App": app]
                let type = chosen == .jsonl ? "application/x-ndjson" : "application/json"
                return HTTPResponse(status: 200, contentType: type, headers: headers, body: body)
            }
        } catch let error as ExportError {
            return .text("\(error).\n", status: 500)
        } catch {
            return .text("the session could not be exported: \(error)\n", status: 500)
        }
    }
}

extension LogError.Kind {
    fileprivate var isUnknownOrAmbiguous: Bool {
        switch self {
        case .unknownSession, .ambiguousSession: true
        default: false
        }
    }
}
