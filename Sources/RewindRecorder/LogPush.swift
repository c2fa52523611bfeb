import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWire

/// Delivers sessions from a log file to `rewind serve`, as a recorder's catch-up does: each on
/// its own connection, resumed from the server's `nextSeq`, so pushing twice stores nothing twice
/// (`rewind push`, for a log taken from a simulator's container or a device backup).
package enum LogPush {
    /// What happened to one session.
    package struct Outcome: Sendable {
        package var session: SessionInfo
        /// Events the server held before the push (its `nextSeq`); `nil` when it never answered.
        package var serverHad: Int64?
        /// Events the server holds now (acknowledged through `lastSeq`).
        package var serverHas: Int64
        /// Whether the server now holds every event.
        package var delivered: Bool
        /// Why not, when it does not.
        package var problem: String?
        /// The server that holds it (the one that acknowledged it), when one answered.
        package var server: URL?
    }

    /// The addresses `urls` stand for (`ws://HOST:PORT/app`, each with a browser address's token
    /// unless `token` is given), or one sentence saying why one cannot be used.
    package static func resolve(_ urls: [URL], token: String?) -> Result<[(url: URL, token: String?)], PushError> {
        switch ServerAddress.resolve(list: urls) {
        case .success(let resolved): return .success(resolved.map { ($0.url, token ?? $0.token) })
        case .failure(let problem): return .failure(PushError(message: problem.message))
        }
    }

    /// An address that cannot be pushed to.
    package struct PushError: Error, Sendable {
        package var message: String
    }

    /// Pushes `sessions` of the log at `path` to the first of `servers` that takes them (each
    /// resolved by ``resolve(_:token:)``; equivalent servers, tried in order as a recorder's
    /// are, all trusting `caFile` for `wss` besides the system's CAs), waiting up to `timeout`
    /// for each. With a writable log, each session's delivery is recorded in it (`deliveries`,
    /// naming the server that acknowledged), and a session already recorded as delivered to one
    /// of `servers` is not sent again.
    /// The secret that proves `info` is this log's session: the one the log keeps; else, in a log
    /// this push may write whose session has no owner yet (recorded before owners), `made`,
    /// claimed and kept there so that a later push proves it again; else `made`, for this push
    /// alone (a server's own log keeps only digests: a session it holds with an owner cannot be
    /// resumed elsewhere from it).
    private static func secret(of info: SessionInfo, reader: LogReader, writer: LogWriter?, made: String) throws -> String {
        if let writer {
            if let kept = try writer.secret(session: info.id) { return kept }
            do {
                _ = try writer.openSession(uuid: info.uuid, app: info.app, startedAt: info.startedAt, meta: info.meta,
                                           replayOf: info.replayOf, run: info.run, hashVersion: info.hashVersion,
                                           owner: .keeping(made))
            } catch {
                guard case .notOwner = error.kind else { throw error }
            }
            return made
        }
        return try reader.owner(session: info.id)?.secret ?? made
    }

    package static func push(path: String, sessions names: [String], servers: [(url: URL, token: String?)], caFile: String? = nil,
                             transport: ServerTransport = .automatic, timeout: Duration = .seconds(60)) throws -> [Outcome] {
        let reader = try LogReader(path: path)
        let infos: [SessionInfo] = names.isEmpty ? try reader.sessions() : try names.map { try reader.session(named: $0) }
        // Recording what the server acknowledged needs the log's writer; a log another process
        // writes (the app itself) or a read-only copy is pushed without the marks.
        let writer = try? LogWriter(path: path)
        defer { writer?.close() }
        let requests = servers.map { server in
            TransportRequest(url: server.url, subprotocol: AppMessage.subprotocol, token: server.token, caFile: caFile,
                             maxQueuedMessages: 1 << 20, maxQueuedBytes: 256 << 20)
        }
        // The server the last session reached: the next one starts there.
        var reached = 0
        var outcomes: [Outcome] = []
        for info in infos {
            let last = info.lastSeq ?? -1
            if last < 0 {
                outcomes.append(Outcome(session: info, serverHad: nil, serverHas: -1, delivered: true, problem: nil))
                continue
            }
            // Recorded as delivered to one of these servers (a mark for another does not count).
            let holder = try servers.first { try reader.deliveredSeq(session: info.id, server: $0.url.absoluteString) >= last }
            if writer != nil, let holder {
                // Known from this log's own mark; the server is not asked.
                outcomes.append(Outcome(session: info, serverHad: nil, serverHas: last, delivered: true, problem: nil,
                                        server: holder.url))
                continue
            }
            let events = try reader.events(session: info.id, includeKeyframes: true)
            var session = RecordingSession(uuid: info.uuid, app: info.app, startedAt: info.startedAt, meta: info.meta,
                                           replayOf: info.replayOf, run: info.run, hashVersion: info.hashVersion)
            session.secret = try secret(of: info, reader: reader, writer: writer, made: session.secret)
            let acks = AckTally()
            let failures = FailureTally()
            let link = ServerLink(
                session: session, transport: transport, requests: requests, startAt: reached, capacity: .max,
                commands: { command, link in
                    link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this session is being pushed from a log file; its app is not running"))
                },
                failures: { failure, url in failures.note(failure, url: url) },
                acknowledged: { seq, server in acks.note(seq, by: server) },
                welcomed: { index in acks.welcomed(index) })
            link.connect()
            link.deliverRecorded(events.map { RecordedEvent(event: $0, nonFinitePointers: $0.nonFinite) }, ended: info.endedAt != nil,
                                 at: info.endedAt?.timeIntervalSince1970)
            // Waits in slices, giving up early on servers that refuse or cannot be reached three
            // times each before one ever answered, or that each refused the session as another's.
            let deadline = Deadline.after(timeout)
            var delivered = false
            while !deadline.hasPassed {
                if link.waitUntilDelivered(until: min(deadline, Deadline.after(.milliseconds(250)))) {
                    delivered = true
                    break
                }
                if link.status.connections == 0, failures.count >= 3 * servers.count { break }
                // Every server holds the session under another secret: it will not change.
                if link.status.connections == 0, link.status.ownerRefusals >= servers.count { break }
            }
            if !delivered { link.stop() }
            if let index = acks.lastWelcome { reached = index }
            let status = link.status
            // What the server it ended on holds (the link's own count is that server's).
            let has = acks.server == nil ? -1 : status.ackedThrough
            if let writer, has >= 0, let server = acks.server {
                // Delivered with its end: the end's own mark, one past the last seq.
                let mark = delivered && info.endedAt != nil && has >= last ? last + 1 : has
                try? writer.markDelivered(session: info.id, server: server.absoluteString, through: mark)
            }
            var problem: String?
            if !delivered {
                problem = status.lastError ?? failures.last
                    ?? "the server did not take it within \(Int(timeout.seconds)) s"
            }
            outcomes.append(Outcome(session: info, serverHad: acks.first.map { $0 + 1 }, serverHas: has, delivered: delivered,
                                    problem: problem, server: acks.server))
        }
        return outcomes
    }
}

/// The acknowledgements a pushed session got: the first of the server it ended on (what that
/// server had), that server, and the server that last welcomed it.
private final class AckTally: Sendable {
    private struct Tally {
        var firstSeq: Int64?
        var server: URL?
        var lastWelcome: Int?
    }

    private let tally = Mutex(Tally())

    func note(_ seq: Int64, by server: URL) {
        tally.withLock { tally in
            // Another server: what it had is what counts.
            if tally.server != server { tally.firstSeq = nil }
            if tally.firstSeq == nil { tally.firstSeq = seq }
            tally.server = server
        }
    }

    func welcomed(_ index: Int) {
        tally.withLock { $0.lastWelcome = index }
    }

    var first: Int64? { tally.withLock { $0.firstSeq } }
    var server: URL? { tally.withLock { $0.server } }
    var lastWelcome: Int? { tally.withLock { $0.lastWelcome } }
}

/// The last reason a connect failed.
private final class FailureTally: Sendable {
    private struct Seen {
        var reason: String?
        var failures = 0
    }

    private let seen = Mutex(Seen())

    /// Keeps the failure as the sentence the recorder would say (a wrong token, a refused or
    /// timed-out connect), not the transport's own words.
    func note(_ failure: TransportFailure, url: URL) {
        let sentence = failure.aboutEvents ? failure.reason : ConnectFailure(reason: failure.reason).sentence(url: url)
        seen.withLock { seen in
            seen.reason = sentence
            seen.failures += 1
        }
    }

    var last: String? { seen.withLock { $0.reason } }
    var count: Int { seen.withLock { $0.failures } }
}
