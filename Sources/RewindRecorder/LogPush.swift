import Foundation
import RewindJSON
import RewindLog
import RewindWire
import RewindSupport

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
    }

    /// Pushes `sessions` of the log at `path` to the server at `url`, waiting up to `timeout`
    /// for each. With a writable log, each session's delivery is recorded in it (`deliveries`),
    /// and a session already recorded as delivered to that server is not sent again.
    /// The address `url` stands for (`ws://HOST:PORT/app`, with a browser address's token),
    /// or one sentence saying why it cannot be used.
    package static func resolve(_ url: URL, token: String?) -> Result<(url: URL, token: String?), PushError> {
        switch ServerAddress.resolve(url) {
        case .success(let resolved): return .success((resolved.url, token ?? resolved.token))
        case .failure(let problem): return .failure(PushError(message: problem.message))
        }
    }

    /// An address that cannot be pushed to.
    package struct PushError: Error, Sendable {
        package var message: String
    }

    package static func push(path: String, sessions names: [String], url: URL, token: String?, caFile: String? = nil,
                             transport: ServerTransport = .automatic, timeout: Duration = .seconds(60)) throws -> [Outcome] {
        let reader = try LogReader(path: path)
        let infos: [SessionInfo] = names.isEmpty ? try reader.sessions() : try names.map { try reader.session(named: $0) }
        // Recording what the server acknowledged needs the log's writer; a log another process
        // writes (the app itself) or a read-only copy is pushed without the marks.
        let writer = try? LogWriter(path: path)
        defer { writer?.close() }
        let server = url.absoluteString
        let request = TransportRequest(url: url, subprotocol: AppMessage.subprotocol, token: token, caFile: caFile,
                                       maxQueuedMessages: 1 << 20, maxQueuedBytes: 256 << 20)
        var outcomes: [Outcome] = []
        for info in infos {
            let last = info.lastSeq ?? -1
            if last < 0 {
                outcomes.append(Outcome(session: info, serverHad: nil, serverHas: -1, delivered: true, problem: nil))
                continue
            }
            // Recorded as delivered to this server (a mark for another server does not count).
            if writer != nil, try reader.deliveredSeq(session: info.id, server: server) >= last {
                outcomes.append(Outcome(session: info, serverHad: last + 1, serverHas: last, delivered: true, problem: nil))
                continue
            }
            let events = try reader.events(session: info.id, includeKeyframes: true)
            let session = RecordingSession(uuid: info.uuid, app: info.app, startedAt: info.startedAt, meta: info.meta,
                                           replayOf: info.replayOf, run: info.run, hashVersion: info.hashVersion)
            let acks = AckTally()
            let failures = FailureTally()
            let link = ServerLink(
                session: session, transport: transport, request: request, capacity: .max,
                commands: { command, link in
                    link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this session is being pushed from a log file; its app is not running"))
                },
                failures: { failure in failures.note(failure) },
                acknowledged: { seq in acks.note(seq) })
            link.connect()
            link.deliverRecorded(events.map { RecordedEvent(event: $0, nonFinitePointers: $0.nonFinite) }, ended: info.endedAt != nil)
            // Waits in slices, giving up early on a server that refuses or cannot be reached
            // three times before it ever answered.
            let deadline = Date().addingTimeInterval(timeout.seconds)
            var delivered = false
            while Date() < deadline {
                if link.waitUntilDelivered(until: min(deadline, Date().addingTimeInterval(0.25))) {
                    delivered = true
                    break
                }
                if link.status.connections == 0, failures.count >= 3 { break }
            }
            if !delivered { link.stop() }
            let status = link.status
            let has = max(status.ackedThrough, acks.highest)
            if let writer, has >= 0 { try? writer.markDelivered(session: info.id, server: server, through: has) }
            var problem: String?
            if !delivered {
                problem = status.lastError ?? failures.last.map { "cannot reach the server: \($0)" }
                    ?? "the server did not take it within \(Int(timeout.seconds)) s"
            }
            outcomes.append(Outcome(session: info, serverHad: acks.first.map { $0 + 1 }, serverHas: has, delivered: delivered,
                                    problem: problem))
        }
        return outcomes
    }
}

/// The acknowledgements a pushed session got: the first (what the server had) and the highest.
private final class AckTally: Sendable {
    private struct Seen {
        var first: Int64?
        var highest: Int64 = -1
    }

    private let seen = Mutex(Seen())

    func note(_ seq: Int64) {
        seen.withLock { seen in
            if seen.first == nil { seen.first = seq }
            seen.highest = max(seen.highest, seq)
        }
    }

    var first: Int64? { seen.withLock { $0.first } }
    var highest: Int64 { seen.withLock { $0.highest } }
}

/// The last reason a connect failed.
private final class FailureTally: Sendable {
    private struct Seen {
        var reason: String?
        var failures = 0
    }

    private let seen = Mutex(Seen())

    func note(_ failure: TransportFailure) {
        seen.withLock { seen in
            seen.reason = failure.reason
            seen.failures += 1
        }
    }

    var last: String? { seen.withLock { $0.reason } }
    var count: Int { seen.withLock { $0.failures } }
}
