import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWebSocket
import RewindWire

/// This server's link to the other servers on a shared store (issue 30: several `rewind serve`
/// on one PostgreSQL), through the store's feed (LISTEN/NOTIFY):
/// - every commit of another instance arrives as `session first last`: when an inspector here
///   follows that session, the events are read from the store and pushed as if ingested here;
/// - session changes (started, resumed, ended) are announced, so every inspector's list is live;
/// - a command for an app connected to another instance goes out as a message; the instance
///   that has the app relays it and sends the app's answer back to this one;
/// - an instance asked for a session its app is resuming elsewhere lets it go (a take-over).
///
/// Notices are handled on the feed's thread, one at a time, in commit order.
final class ClusterLink: ClusterPeers, @unchecked Sendable {
    /// This server among the others (messages say who sent them and to whom).
    let instance = UUID().uuidString.lowercased()
    private let feed: any LogStoreFeed
    private let hub: InspectorHub
    /// Read only on the feed thread.
    private let reader: LogReader
    /// This instance's apps and its command relay, given at ``start(ingest:relay:)`` (they are
    /// made after this link, which they are handed at their init).
    private weak var ingest: (any LocalApps)?
    private weak var relay: (any RelayedCommands)?
    /// Where messages to the other servers are sent from: never the caller's thread (the ingest
    /// queue announces sessions, and a database that is away must not stall it).
    private let sendQueue = DispatchQueue(label: "rewind.server.cluster-send")
    /// The most events one notice may name: a commit window holds at most 1,000 events and one
    /// more batch of the server's (256); a notice for more is not a commit's, and is ignored.
    static let maxEventsPerNotice: Int64 = 2_000
    /// Events are read and pushed this many at a time.
    static let pushPage: Int64 = 100
    /// The last seq pushed to inspectors from another server's notices, per session (feed
    /// thread only). A notice is a hint that a session grew, from anyone who can log in to the
    /// database: only what lies past this mark and within what the log holds is pushed, so a
    /// notice repeated, replayed or made up pushes nothing twice and nothing that is not there.
    private var pushedThrough: [Int64: Int64] = [:]
    /// The most sessions `pushedThrough` remembers; the oldest marks go first past it.
    static let maxMarks = 10_000
    private var markOrder: [Int64] = []
    /// What `--metrics` counts: bus messages.
    private let metrics: ServerMetrics?
    /// How long ago the newest event pushed from another server happened, when it was pushed.
    private let lastFeedLag = Mutex<Double?>(nil)

    /// Seconds between the newest event another server committed that this one pushed and the
    /// moment it pushed it (a scrape reads it); `nil` before any.
    var feedLagSeconds: Double? { lastFeedLag.withLock { $0 } }

    init(feed: any LogStoreFeed, store: any LogStore, hub: InspectorHub, metrics: ServerMetrics? = nil) throws(LogError) {
        self.metrics = metrics
        self.feed = feed
        self.hub = hub
        reader = try store.openReader()
    }

    func start(ingest: any LocalApps, relay: any RelayedCommands) throws(LogError) {
        self.ingest = ingest
        self.relay = relay
        try feed.start { [weak self] notice in self?.handle(notice) }
    }

    func stop() {
        feed.stop()
    }

    // MARK: Outgoing

    /// Tells the other servers that `session` started, resumed or ended here.
    func announce(_ change: InspectorPush.SessionChange, session: Int64) {
        send(["kind": "session", "from": .string(instance), "change": .string(change.rawValue), "session": .number(JSONNumber(session))])
    }

    /// Asks whoever streams `session` to let it go: its app is resuming it on this server.
    func askToRelease(session: Int64) {
        send(["kind": "release", "from": .string(instance), "session": .number(JSONNumber(session))])
    }

    /// Whether an app streams `session` to some server on the store.
    func isLive(session: Int64) -> Bool {
        (try? feed.isLeased(session: session)) ?? false
    }

    /// The sessions whose lease some server holds now (their apps stream them); empty when the
    /// store cannot say (it is away).
    func liveSessionIDs() -> Set<Int64> {
        (try? feed.leasedSessions()) ?? []
    }

    /// Sends `command` (already given the relay's id) to the server whose app streams `session`.
    func forward(command: JSONValue, session: Int64) throws(LogError) {
        try feed.send(message(["kind": "command", "from": .string(instance), "session": .number(JSONNumber(session)), "command": command]))
    }

    /// Sends an app's answer (`reply`, an inspector message) back to the server that asked.
    func reply(_ reply: JSONValue, to server: String, id: String) {
        send(["kind": "reply", "to": .string(server), "id": .string(id), "reply": reply])
    }

    private func send(_ object: JSONObject) {
        // A lost message is a command that times out or a list that refreshes late; never a
        // reason to fail what the caller does.
        let text = message(object)
        sendQueue.async { [feed] in _ = try? feed.send(text) }
    }

    private func message(_ object: JSONObject) -> String {
        JSONValue.object(object).serialized(.compact)
    }

    // MARK: Incoming

    private func handle(_ notice: LogStoreNotice) {
        metrics?.busMessage()
        switch notice {
        case .events(let session, let first, let last):
            pushEvents(session: session, first: first, last: last)
        case .message(let text):
            guard let json = try? JSONValue(parsing: Array(text.utf8)), case .object(let object) = json else { return }
            handle(object)
        case .reconnected:
            // Commits announced while the feed was away never arrived: the inspectors fill the
            // gap from the log, as after a lag.
            hub.publishGap("the server lost its link to the database for a moment, and live events from other servers may be missing; fetch what you missed with events")
        }
    }

    private func pushEvents(session: Int64, first: Int64, last claimed: Int64) {
        // Ingested here: the inspectors already had them, straight from the app.
        guard ingest?.isStreaming(session: session) != true, hub.isListening(to: session) else { return }
        guard first >= 0, claimed >= first, claimed - first < Self.maxEventsPerNotice else { return }
        guard let info = try? reader.session(id: session), let stored = info.lastSeq else { return }
        // Only what the log holds, and only what was not pushed before.
        let last = min(claimed, stored)
        var from = first
        if let mark = pushedThrough[session] {
            from = max(from, mark + 1)
        } else if info.endedAt != nil {
            // An ended session this server never followed live: nothing of it is news.
            remember(session, through: stored)
            return
        } else {
            // A session first heard of here: a commit's notice names the log's newest events.
            from = max(from, stored - Self.maxEventsPerNotice + 1)
        }
        guard from <= last else { return }
        remember(session, through: last)
        while from <= last {
            let to = min(last, from + Self.pushPage - 1)
            guard let events = try? reader.events(session: session, from: from, to: to, includeKeyframes: true) else {
                // Read back what was committed failed (the database went away): say so, so the
                // inspectors fetch it once it is back.
                hub.publishGap("live events from another server could not be read from the database; fetch what you missed with events")
                return
            }
            push(events, of: info)
            if let newest = events.last?.at { lastFeedLag.withLock { $0 = max(0, Date().timeIntervalSince(newest)) } }
            from = to + 1
        }
    }

    private func remember(_ session: Int64, through seq: Int64) {
        if pushedThrough.updateValue(seq, forKey: session) == nil {
            markOrder.append(session)
            if markOrder.count > Self.maxMarks {
                let dropped = markOrder.prefix(markOrder.count - Self.maxMarks / 2)
                for old in dropped { pushedThrough[old] = nil }
                markOrder.removeFirst(dropped.count)
            }
        }
    }

    private func push(_ events: [LogEvent], of info: SessionInfo) {
        let session = info.id
        for event in events {
            let wire = WireEvent(
                seq: event.seq, at: event.at.timeIntervalSince1970, action: event.action,
                patch: event.seq == 0 ? nil : event.patch, keyframe: event.seq == 0 ? event.keyframe : nil,
                hash: event.hash, durationNs: event.durationNs, cause: event.cause, coalesced: event.coalesced,
                nonFinite: event.nonFinite, site: event.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) })
            hub.publish(event: wire, session: info.uuid, sessionID: session, actionType: event.actionType)
        }
    }

    private func handle(_ object: JSONObject) {
        let from = object["from"]?.stringValue
        switch object["kind"]?.stringValue {
        case "session":
            guard from != instance, let session = object["session"]?.numberValue?.int64Value,
                  let change = object["change"]?.stringValue.flatMap(InspectorPush.SessionChange.init(rawValue:)),
                  let info = try? reader.session(id: session) else { return }
            hub.publish(change: change, session: WireSession(info, live: change != .ended))
        case "release":
            guard from != instance, let session = object["session"]?.numberValue?.int64Value else { return }
            ingest?.letGo(session: session)
        case "command":
            guard let from, from != instance, let session = object["session"]?.numberValue?.int64Value,
                  let command = object["command"], let app = ingest?.appConnection(for: session) else { return }
            relay?.relay(command: command, to: app, forServer: from)
        case "reply":
            guard object["to"]?.stringValue == instance, let id = object["id"]?.stringValue, let reply = object["reply"] else { return }
            relay?.remoteReply(id: id, reply: reply)
        default:
            return
        }
    }
}
