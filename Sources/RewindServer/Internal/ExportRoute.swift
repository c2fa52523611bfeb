import Foundation
import RewindLog
import RewindSupport
import RewindWebSocket

/// `GET /export/<session>?format=jsonl|redux-devtools`: the session as a download, written by
/// the same ``SessionExporter`` as `rewind export`, so the file is byte-identical to it. The
/// default format is the one the session was imported from, else JSONL, as on the command line.
///
/// The file is streamed (Docs/Inspector.md, Export): the session is found first, on a thread of
/// its own (an unknown one is a 404 before any 200), then the exporter writes into the
/// response's bounded buffer (``HTTPBodyWriter/defaultWindow``, 1 MiB) as the client reads, and
/// stops when the client goes. At most ``Limits/maxConcurrent`` exports run at once; more are
/// answered `503` with `Retry-After`. `HEAD` finds the session and answers the headers without
/// making a body (at most ``Limits/maxConcurrentHeads`` at once, counted apart).
struct ExportRoute: Sendable {
    struct Limits: Sendable {
        /// Exports streaming (or finding their session) at once.
        var maxConcurrent = 2
        /// How long a client may take nothing while the export has bytes waiting for it.
        var stallTimeout: Duration = .seconds(30)
        /// Seconds a refused client is told to wait (`Retry-After`).
        var retryAfterSeconds = 5
        /// `HEAD` requests looking their session up at once (each on a thread of its own, for a
        /// few milliseconds; they build nothing, so they are not counted as exports).
        var maxConcurrentHeads = 8
    }

    static let prefix = "/export/"
    private let readers: ReaderPool
    private let slots: ExportSlots
    private let headSlots: ExportSlots
    private let limits: Limits

    init(store: any LogStore, limits: Limits = Limits()) throws(LogError) {
        // Reader connections of their own, so an export never competes with the inspectors'
        // query readers: one per export that may run, and one for `HEAD` requests, so that they
        // need not wait for a running export. An export keeps its reader for as long as it
        // streams, but holds no read transaction between two pages of events, so a client that
        // reads slowly does not keep the log's WAL from restarting.
        readers = try ReaderPool(store: store, count: limits.maxConcurrent + 1)
        slots = ExportSlots(limit: limits.maxConcurrent)
        headSlots = ExportSlots(limit: limits.maxConcurrentHeads)
        self.limits = limits
    }

    static func handles(_ request: HTTPRequest) -> Bool {
        request.path.hasPrefix(prefix)
    }

    /// Exports running now: finding their session or streaming.
    var activeCount: Int { slots.count }

    /// Malformed requests are answered at once; the export itself is a deferred response that
    /// streams its body.
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
        let headOnly = request.method == "HEAD"
        guard let slot = (headOnly ? headSlots : slots).acquire() else {
            let sentence = headOnly
                ? "the server is already answering \(limits.maxConcurrentHeads) HEAD requests for exports, as many as it takes at once"
                : "the server is already streaming \(limits.maxConcurrent) exports, as many as it runs at once"
            var busy = HTTPResponse.text(sentence + "; try again in a few seconds\n", status: 503)
            busy.headers.add("Retry-After", "\(limits.retryAfterSeconds)")
            return busy
        }
        return .deferred { [readers, format, limits] in
            let response = Self.find(name, format: format, readers: readers, slot: slot, limits: limits)
            // A HEAD is done once looked up: its body never runs.
            if response.status != 200 || headOnly { slot.release() }
            return response
        }
    }

    /// The session's streamed export, or the 404/500 that stands for it (a producer thread, not
    /// the service thread).
    private static func find(_ name: String, format: ImportFormat?, readers: ReaderPool, slot: ExportSlot,
                             limits: Limits) -> HTTPResponse {
        let session: SessionInfo
        do {
            let found = try readers.withReader { reader -> Result<SessionInfo, LogError> in
                do {
                    return .success(try reader.session(named: name))
                } catch let error as LogError where error.kind.isUnknownOrAmbiguous {
                    return .failure(error)
                }
            }
            switch found {
            case .success(let info): session = info
            case .failure(let error): return .text("\(error.description)\n", status: 404)
            }
        } catch {
            return .text("the session could not be exported: \(error)\n", status: 500)
        }
        let chosen = format ?? ImportMeta(sessionMeta: session.meta)?.format ?? .jsonl
        do {
            // Refused before any 200: a Redux DevTools export of a session without events.
            try readers.withReader { try SessionExporter(reader: $0, session: session).check(chosen) }
        } catch {
            return .text("\(error).\n", status: 500)
        }
        let ext = chosen == .jsonl ? "jsonl" : "json"
        let file = "rewind-session-\(session.id).\(chosen == .jsonl ? "" : "redux-devtools.")\(ext)"
        // Which session it is, for `rewind test --server` (which names the test after the app,
        // as it does from a log file): the app percent-encoded, so any name is one line.
        let app = session.app.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let headers: HTTPHeaders = ["Content-Disposition": "attachment; filename=\"\(file)\"",
                                    "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                    "X-Rewind-Session-Id": String(session.id), "X-Rewind-App": app]
        let type = chosen == .jsonl ? "application/x-ndjson" : "application/json"
        return .streamed(contentType: type, headers: headers, stallTimeout: limits.stallTimeout) { writer in
            defer { slot.release() }
            try readers.withReader { reader in
                try SessionExporter(reader: reader, session: session).write(chosen) { chunk in try writer.write(chunk) }
            }
        }
    }
}

/// The exports that may run at once: a slot is taken before the session is looked up and given
/// back when the export ends, however it ends.
final class ExportSlots: @unchecked Sendable {
    private let limit: Int
    private let taken = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    var count: Int { taken.withLock { $0 } }

    /// A slot, or `nil` when `limit` exports are running.
    func acquire() -> ExportSlot? {
        let granted = taken.withLock { taken -> Bool in
            guard taken < limit else { return false }
            taken += 1
            return true
        }
        return granted ? ExportSlot(owner: self) : nil
    }

    fileprivate func giveBack() {
        taken.withLock { $0 -= 1 }
    }
}

/// One running export's place. Released when its stream ends, when the lookup answers something
/// else than 200, or, should the response be dropped unsent (its client left before the
/// headers, the server shut down), when the last closure holding it goes.
final class ExportSlot: @unchecked Sendable {
    private let owner: ExportSlots
    private let released = Mutex(false)

    fileprivate init(owner: ExportSlots) {
        self.owner = owner
    }

    deinit {
        release()
    }

    func release() {
        let first = released.withLock { released -> Bool in
            defer { released = true }
            return !released
        }
        if first { owner.giveBack() }
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
