import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// What a link sends: its events, in batches, and never what the server would refuse (a state
/// over its `maxState`, an event over its `maxMessage`, JSON deeper than it reads), which is
/// withheld (the event goes without its state change, the next state that fits goes whole) and
/// said once. Everything here runs with the link's lock held, in ``ServerLink/change(_:)``.
extension ServerLink {
    /// With the lock held: sends every pending event from `seq` on.
    func sendGathered(from seq: Int64, now: Int64, _ state: inout State) {
        state.gatheredFrom = nil
        state.lastSendAt = now
        guard let client = state.client else { return }
        sendEvents(in: state.events.indices(from: seq), on: client, serverHash: nil, &state)
    }

    /// With the lock held: sends `range`, tracking the hash of the state the server will hold.
    ///
    /// Several events go in `events` batches (``EventFrames``), one alone as `event`. Nothing
    /// the server would refuse is sent: a state over its `maxState`, or an event over its
    /// `maxMessage`, is withheld (the event goes without its state change, the next state that
    /// fits goes whole) and said once in one sentence (`report`, ``ServerSink/Status/problem``);
    /// an action too large for any message goes as a placeholder.
    func sendEvents(in range: Range<Int>, on client: any TransportConnection, serverHash: UInt64?, _ state: inout State) {
        // The server sent to (a failed send moves the link on before the reports go).
        let url = requests[state.server].url
        var holds = serverHash
            ?? (range.lowerBound > state.events.startIndex ? state.events[range.lowerBound - 1].sentHash : state.events.ackedHash)
        var frames = EventFrames(maxMessage: state.events.limits.maxMessage)
        // Sentences to report: one for each run of withheld events that starts here.
        var reports: [(seq: Int64, sentence: String)] = []
        func note(_ withheld: WithheldEvent) {
            let sentence = withheld.sentence(app: session.app, session: session.uuid)
            state.lastError = sentence
            if reports.last?.seq == withheld.seq {
                // The same event again (its action too large as well): say the later reason.
                reports[reports.count - 1].sentence = sentence
            } else if !state.events.reportedWithholding {
                state.events.reportedWithholding = true
                reports.append((withheld.seq, sentence))
            }
        }
        var index = range.lowerBound
        // A withheld state rewrites the entries after it (the newest then carries the whole
        // state), so the loop reads each entry as it reaches it.
        while index < range.upperBound {
            if let refusal = state.events.stateRefusal(at: index) {
                state.events.withhold(from: index)
                note(refusal)
            }
            var entry = state.events[index]
            var wire = WireEvent(seq: entry.seq, at: entry.at.timeIntervalSince1970, action: entry.action,
                                 hash: entry.hash, durationNs: entry.durationNs, cause: entry.cause,
                                 coalesced: entry.coalesced, nonFinite: entry.nonFinite,
                                 site: entry.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) })
            var stateful = true
            switch entry.body {
            case .patch(let patch): wire.patch = patch
            case .keyframe(let whole): wire.keyframe = whole
            case .dropped:
                // No state change goes with it: only the action's pointers still apply.
                stateful = false
                wire.nonFinite = entry.nonFinite.filter { $0.hasPrefix("/action") }
                wire.patch = []
                // Seq 0 withheld: the session starts from `null`.
                wire.hash = holds ?? (entry.seq == 0 ? JSONValue.null.hash(session.hashVersion) : entry.hash)
            }
            var members = wire.json(withType: false).serializedBytes(.compact)
            // Deeper than the server's parser reads: its frame (and every event batched with
            // it) would be refused whole as bad JSON.
            let depth = WithheldEvent.nesting(of: members)
            if depth > WithheldEvent.maxMemberDepth {
                if stateful {
                    state.events.withhold(from: index)
                    note(WithheldEvent(seq: entry.seq, reason: .tooDeep(depth: depth, limit: WithheldEvent.maxMemberDepth, action: false)))
                    continue
                }
                note(WithheldEvent(seq: entry.seq, reason: .tooDeep(depth: depth, limit: WithheldEvent.maxMemberDepth, action: true)))
                wire.action = WithheldEvent.placeholder(for: .null, bytes: members.count)
                wire.nonFinite = []
                members = wire.json(withType: false).serializedBytes(.compact)
            }
            let size = WireEventBatch.singleFrameSize(memberBytes: members.count)
            if size > state.events.limits.maxMessage {
                if stateful {
                    // Over the message limit with its state: withheld like a state too large.
                    state.events.withhold(from: index)
                    note(WithheldEvent(seq: entry.seq, reason: .messageTooLarge(bytes: size, limit: state.events.limits.maxMessage)))
                    continue
                }
                // The action alone is too large for any message the server reads.
                note(WithheldEvent(seq: entry.seq, reason: .actionTooLarge(bytes: size, limit: state.events.limits.maxMessage)))
                wire.action = WithheldEvent.placeholder(for: wire.action, bytes: size)
                wire.nonFinite = []
                members = wire.json(withType: false).serializedBytes(.compact)
            }
            if stateful { state.events.reportedWithholding = false }
            holds = wire.hash
            entry.sentHash = wire.hash
            state.sentThrough = max(state.sentThrough, entry.seq)
            state.events[index] = entry
            index += 1
            frames.add(members)
            if index == range.upperBound { frames.flush() }
            let ready = frames.take()
            if !ready.allSatisfy({ client.send(text: String(decoding: $0, as: UTF8.self)) }) {
                // The queue is full (the server stopped reading) or the connection is closing
                // (the server dropped it, which this may learn before the close itself): as for
                // a welcomed connection that ended, start over after the backoff on the next
                // server (this one when it is the only one), which resends from its `nextSeq`.
                client.close(goingAway: true)
                scheduleRetry(.nextWelcomed, &state)
                break
            }
        }
        // Reported once the lock is released, in order.
        for report in reports { state.notes.append(.report(report.sentence, url)) }
    }
}
