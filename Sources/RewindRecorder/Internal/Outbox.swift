import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// The device's copy of what a ``ServerSink`` streams (store and forward): every event goes into
/// a local log before the server has it, with, per session, the server that acknowledged it last
/// and the highest seq that server acknowledged (`deliveries`). Whatever the server has not
/// acknowledged when the app exits (the server down, the token wrong, the app killed) is
/// delivered the next time a recorder of this app reaches that server, or by `rewind push`.
///
/// The local log is one file per app and server (``path(folder:app:server:)``), so that two apps
/// on one Mac, or tests on many ports, never deliver each other's sessions. A sink with several
/// servers (equivalent ones) uses its first server's file, and each session's mark names
/// whichever of them acknowledged it: a session one of them holds whole is not sent to another.
/// It is bounded: past ``limitBytes``, the oldest sessions the server already has are pruned
/// first, then the oldest undelivered ones, which is reported in one sentence.
final class Outbox: @unchecked Sendable {
    /// The local log's file.
    let path: String
    /// The server the sessions are meant for (a sink's first), as the deliveries table records
    /// it until a server acknowledges.
    let server: String
    /// The most bytes the local log may take.
    let limitBytes: Int64
    private let loan: WriterLoan
    private struct Open {
        var sessionIDs: [String: Int64] = [:]
        var failure: LogError?
        /// The newest acknowledged seq per session id, and the server that acknowledged it, not
        /// yet written down.
        var acked: [Int64: (server: String, seq: Int64)] = [:]
        var markScheduled = false
    }

    private let open = Mutex(Open())
    /// Marks are written off the connection's thread, one job at a time.
    private let marks = DispatchQueue(label: "rewind.outbox.marks")

    /// The default bound of a local log: 256 MiB.
    static let defaultLimit: Int64 = 256 << 20

    init(path: String, server: String, limitBytes: Int64 = Outbox.defaultLimit) {
        self.path = path
        self.server = server
        self.limitBytes = limitBytes
        self.loan = WriterLoan(path: path)
    }

    /// The local log of `app` for `server`: `FOLDER/APP@HOST_PORT.db`, with anything but letters,
    /// digits, `-`, `_` and `.` in the names turned into `_`.
    static func path(folder: String, app: String, server: URL) -> String {
        func clean(_ text: String) -> String {
            let kept = text.unicodeScalars.prefix(64).map { scalar -> Character in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            }
            return String(kept)
        }
        let host = clean(server.host ?? "server")
        let port = server.port.map(String.init) ?? "7433"
        return folder + "/" + clean(app) + "@" + host + "_" + port + ".db"
    }

    /// The folder of local logs: `$REWIND_OUTBOX`, else `outbox` beside the default log (in an
    /// iOS app, inside its container).
    static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let folder = environment["REWIND_OUTBOX"], !folder.isEmpty { return LogFileError.expandingTilde(folder) }
        return (DefaultLog.path(environment: environment) as NSString).deletingLastPathComponent + "/outbox"
    }

    // MARK: Recording

    /// Records the session in the local log, marked for the server; returns its local id.
    func begin(_ session: RecordingSession) throws -> Int64 {
        let writer = try openedWriter()
        // The writer's calls wait for its thread, whose completions take `open`'s lock: not under it.
        let id = try writer.openSession(uuid: session.uuid, app: session.app, startedAt: session.startedAt, meta: session.meta,
                                        replayOf: session.replayOf, run: session.run, hashVersion: session.hashVersion,
                                        owner: .keeping(session.secret))
        try writer.markDelivered(session: id, server: server, through: -1)
        open.withLock { $0.sessionIDs[session.uuid] = id }
        Self.live.withLock { live in _ = live[path, default: []].insert(session.uuid) }
        return id
    }

    /// The sessions being recorded into each local log in this process, by every sink on it: a
    /// catch-up never takes them for an earlier run's, and the bound never prunes them.
    private static let live = Mutex<[String: Set<String>]>([:])

    /// Every session of this local log that a sink of this process records now.
    var liveSessions: Set<String> { Self.live.withLock { $0[path] ?? [] } }

    /// Appends the events (on the recorder's thread; the writer commits them in its own time).
    func write(_ events: [RecordedEvent], of session: RecordingSession) {
        let id = open.withLock { open -> Int64? in
            guard let id = open.sessionIDs[session.uuid], open.failure == nil else { return nil }
            return id
        }
        guard let id, let writer = loan.current else { return }
        let uuid = session.uuid
        let last = events.last?.event.seq
        writer.append(events.logEvents(session: id)) { [weak self] result in
            if case .success = result, let last { CrashJournal.committed(session: uuid, through: last) }
            guard case .failure(let error) = result, let self else { return }
            self.open.withLock { open in
                if open.failure == nil { open.failure = error }
            }
        }
    }

    /// The first write the local log refused, if any.
    var lastFailure: LogError? { open.withLock { $0.failure } }

    /// The local id of a session begun here.
    func sessionID(of uuid: String) -> Int64? {
        open.withLock { $0.sessionIDs[uuid] }
    }

    /// Records the session's end in the local log.
    func end(_ session: RecordingSession, at date: Date) throws {
        Self.live.withLock { live in _ = live[path]?.remove(session.uuid) }
        let id = open.withLock { $0.sessionIDs[session.uuid] }
        guard let writer = loan.current, let id else { return }
        try writer.commit()
        try writer.endSession(id: id, at: date)
    }

    /// Commits what was appended: from here on it survives the app.
    func commit() throws {
        try loan.current?.commit()
    }

    /// `server` holds `session` through `seq`: written down soon, off the caller's thread (only
    /// the newest seq of each session is written). What another server acknowledged before is
    /// replaced: the mark says what the server the session is on holds (a server on a log of its
    /// own may hold less than the one before it).
    func acknowledged(session id: Int64, through seq: Int64, by server: String? = nil) {
        let server = server ?? self.server
        let schedule = open.withLock { open -> Bool in
            if let earlier = open.acked[id], earlier.server == server {
                open.acked[id] = (server, max(earlier.seq, seq))
            } else {
                open.acked[id] = (server, seq)
            }
            defer { open.markScheduled = true }
            return !open.markScheduled
        }
        guard schedule else { return }
        marks.async { [self] in
            let pending = open.withLock { open -> [Int64: (server: String, seq: Int64)] in
                defer {
                    open.acked = [:]
                    open.markScheduled = false
                }
                return open.acked
            }
            guard let writer = loan.current else { return }
            for (session, mark) in pending {
                try? writer.markDelivered(session: session, server: mark.server, through: mark.seq)
            }
        }
    }

    /// The events of the session with local id `id` from a keyframe at or before `from` up to
    /// `before` (excluded), with their keyframes, for a server that lacks events another one
    /// acknowledged. What was appended is committed first, so everything written so far reads.
    func events(session id: Int64, from: Int64, before: Int64) throws -> [LogEvent] {
        try commit()
        let reader = try LogReader(path: path)
        let start = try reader.keyframe(atOrBefore: from, session: id)?.seq ?? from
        return try reader.events(session: id, from: start, to: before - 1, includeKeyframes: true)
    }

    /// Waits until every acknowledgement heard so far is written down.
    func waitForMarks() {
        marks.sync {}
    }

    // MARK: Catching up

    /// A session of this local log the server does not hold whole.
    struct Pending {
        var session: RecordingSession
        var localID: Int64
        var ackedSeq: Int64
        var ended: Bool
        /// When the app ended it (seconds since 1970), for `end` to say.
        var endedAt: Double?
        var events: [RecordedEvent]
    }

    /// The sessions of `app` still to deliver, oldest first, leaving out `excluding` (the ones
    /// this process records now), with their events from the first one the server lacks.
    func pending(app: String, excluding: Set<String>) throws -> [Pending] {
        try commit()
        let reader = try LogReader(path: path)
        var found: [Pending] = []
        for delivery in try reader.pendingDeliveries() where delivery.session.app == app && !excluding.contains(delivery.session.uuid) {
            let info = delivery.session
            // From seq 0 when nothing was acknowledged; else the server resumes from its nextSeq,
            // and the link keeps everything after what it acknowledged.
            let from = max(0, delivery.ackedSeq + 1)
            var events = try reader.events(session: info.id, from: from, includeKeyframes: true)
            // (Every event delivered, the end still to confirm: nothing to read.)
            if from > 0, from <= info.lastSeq ?? -1, events.first?.keyframe == nil {
                // The link rebuilds its states from a keyframe: start at the last one before.
                if let keyframe = try reader.keyframe(atOrBefore: from, session: info.id) {
                    events = try reader.events(session: info.id, from: keyframe.seq, includeKeyframes: true)
                }
            }
            var session = RecordingSession(uuid: info.uuid, app: info.app, startedAt: info.startedAt, meta: info.meta,
                                           replayOf: info.replayOf, run: info.run, hashVersion: info.hashVersion)
            // The secret it was recorded with. A session recorded before owners has none: the one
            // made here is kept in this log first (claiming it here), so that a later run proves
            // the session with the same secret if this one does not deliver it all.
            if let secret = try reader.owner(session: info.id)?.secret {
                session.secret = secret
            } else {
                // A log that cannot keep it (a digest stored without its secret) still delivers:
                // the one made here then proves this run's delivery alone.
                session.secret = (try? claim(session)) ?? session.secret
            }
            found.append(Pending(session: session, localID: info.id, ackedSeq: delivery.ackedSeq, ended: info.endedAt != nil,
                                 endedAt: info.endedAt?.timeIntervalSince1970,
                                 events: events.map { RecordedEvent(event: $0, nonFinitePointers: $0.nonFinite) }))
        }
        return found
    }

    // MARK: The bound

    /// Keeps the local log within ``limitBytes``: prunes the oldest sessions the server holds
    /// whole first, then (only if still over) the oldest it lacks, leaving out `keeping`; returns
    /// one sentence when events the server lacks were dropped.
    func enforceLimit(keeping: Set<String>) throws -> String? {
        guard let writer = loan.current else { return nil }
        try writer.commit()
        let reader = try LogReader(path: path)
        // Pages in use: a pruned session's pages are freed and reused, though the file keeps
        // its size.
        guard try reader.usedBytes() > limitBytes else { return nil }
        let sessions = try reader.sessions().filter { !keeping.contains($0.uuid) }
        var undelivered: [SessionInfo] = []
        for session in sessions {
            let acked = try reader.deliveredSeq(session: session.id)
            if acked >= (session.lastSeq ?? -1) {
                try writer.prune(sessions: [session.id])
                if try reader.usedBytes() <= limitBytes { return nil }
            } else {
                undelivered.append(session)
            }
        }
        var dropped: [(SessionInfo, Int64)] = []
        for session in undelivered {
            let lacking = (session.lastSeq ?? -1) - (try reader.deliveredSeq(session: session.id))
            try writer.prune(sessions: [session.id])
            dropped.append((session, lacking))
            if try reader.usedBytes() <= limitBytes { break }
        }
        guard !dropped.isEmpty else { return nil }
        let events = dropped.reduce(0) { $0 + $1.1 }
        return "the local log \(path) passed its bound of \(Self.megabytes(limitBytes)): \(events) events of \(dropped.count) session\(dropped.count == 1 ? "" : "s") the server does not have were dropped, oldest first (\(dropped.map { String($0.0.uuid.prefix(8)) }.joined(separator: ", ")))"
    }

    /// `256 MiB`, or `0.4 MiB` for a small bound.
    private static func megabytes(_ bytes: Int64) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }

    // MARK: Inside

    /// Keeps `session`'s secret in this log for a session that has none yet; returns the secret
    /// the log holds for it after (the one given, or one another writer kept first).
    private func claim(_ session: RecordingSession) throws -> String {
        let writer = try openedWriter()
        let id = try writer.openSession(uuid: session.uuid, app: session.app, startedAt: session.startedAt, meta: session.meta,
                                        replayOf: session.replayOf, run: session.run, hashVersion: session.hashVersion,
                                        owner: .keeping(session.secret))
        return try writer.secret(session: id) ?? session.secret
    }

    /// The writer, borrowed at the first need.
    private func openedWriter() throws -> LogWriter {
        try loan.writer(prepare: { try LogFileError.prepare(path, createFolder: true) })
    }

    /// Writes the crashes of earlier runs into their sessions here (``CrashJournal``), before
    /// they are delivered: the journals in `folder` of sessions this file holds.
    func recoverCrashes(from folder: String) {
        guard let writer = try? openedWriter() else { return }
        CrashJournal.recover(in: folder, path: path, writer: writer, server: server)
    }
}
