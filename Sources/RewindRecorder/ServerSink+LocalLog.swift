import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWire

/// The device's copy of what a server sink streams (store and forward): the local log opened at
/// the first session, and the earlier sessions of this app it still owes a server, delivered
/// once per sink, each on its own connection.
extension ServerSink {
    /// Opens the local log (once) and records the session in it; a local log that cannot be
    /// used is said once, and the session streams from memory only.
    func keepLocally(_ session: RecordingSession) -> (Outbox?, Int64?) {
        guard let folder = outboxFolder else { return (nil, nil) }
        let outbox = shared.withLock { shared -> Outbox in
            if let outbox = shared.outbox { return outbox }
            // The first server's file: a list is one deployment, and an app that adds fallbacks
            // behind the server it used keeps what it still owes it.
            let made = Outbox(path: Outbox.path(folder: folder, app: session.app, server: url), server: url.absoluteString,
                              limitBytes: outboxLimit)
            shared.outbox = made
            return made
        }
        do {
            let id = try outbox.begin(session)
            return (outbox, id)
        } catch {
            sayLocalProblem("cannot keep the events on this device in \(outbox.path) (\(error)); they are kept in memory until the server has them")
            return (nil, nil)
        }
    }

    /// Delivers, once per sink, the earlier sessions of this app that the server lacks: each on
    /// its own connection, resumed from the server's `nextSeq`. The local log is then kept
    /// within its bound.
    func catchUp(_ outbox: Outbox, app: String) {
        let ours = shared.withLock { shared -> Set<String>? in
            guard !shared.caughtUp else { return nil }
            shared.caughtUp = true
            return Set(shared.links.keys)
        }
        // This sink's sessions, and those other sinks of this process record into the same file.
        guard let ours else { return }
        // Sessions of earlier runs that crashed get their last event before they go.
        if let crashJournalFolder { outbox.recoverCrashes(from: crashJournalFolder) }
        let current = ours.union(outbox.liveSessions)
        let pending: [Outbox.Pending]
        do {
            if let dropped = try outbox.enforceLimit(keeping: current) { sayLocalProblem(dropped) }
            pending = try outbox.pending(app: app, excluding: current)
        } catch {
            sayLocalProblem("cannot read the events kept in \(outbox.path) to deliver them (\(error))")
            return
        }
        for item in pending {
            let id = item.localID
            let link = ServerLink(
                session: item.session, transport: transport, requests: requests, startAt: startingServer, capacity: .max,
                commands: { command, link in
                    link.reply(AppMessage.CommandResult(id: command.id, ok: false, message: "this session is being delivered from the device's log; its app is not running"))
                },
                failures: { _, _ in },
                acknowledged: { seq, server in outbox.acknowledged(session: id, through: seq, by: server.absoluteString) },
                history: { from, before in try outbox.events(session: id, from: from, before: before) })
            shared.withLock { $0.catchingUp.append(link) }
            link.connect()
            link.deliverRecorded(item.events, ended: item.ended, at: item.endedAt, acknowledgedThrough: item.ackedSeq)
        }
    }

    /// Says a problem with the local log once (again only when it changes).
    func sayLocalProblem(_ sentence: String) {
        let changed = shared.withLock { shared -> Bool in
            guard shared.localProblem != sentence else { return false }
            shared.localProblem = sentence
            return true
        }
        if changed, let report { report(sentence) }
    }
}
