import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWire

/// Where a server sink stands: the public ``ServerSink/Status`` and the counts and sentences it
/// is made of (the package's tests read those one by one).
extension ServerSink {
    /// The server the sink's sessions last reached (the latest welcome, on any of its
    /// connections), or `nil` before any did. With fallbacks, the one it moved to.
    package var currentServer: URL? { welcomedServer.withLock { $0 }.map { servers[$0] } }

    /// The last problem with the local log (it could not be opened or read, or passed its bound
    /// and dropped events the server lacks), in one sentence.
    package var lastLocalProblem: String? { shared.withLock { $0.localProblem } }

    /// Where the device keeps its copy of the events (`nil` without a local log, or before the
    /// first session).
    package var localLogPath: String? { shared.withLock { $0.outbox?.path } }

    /// Events of the sessions this sink serves, and of the earlier ones it delivers, that the
    /// server has not acknowledged: kept in the local log for later when it has one.
    package var undeliveredCount: Int {
        let catching = shared.withLock { $0.catchingUp }
        return unacknowledgedCount + catching.reduce(0) { $0 + $1.status.unacked }
    }

    /// How far the server got with the session `uuid`: the events it acknowledged and those
    /// written (seq 0 included), or `nil` for a session this sink never served.
    func delivery(of uuid: String) -> (acknowledged: Int, recorded: Int)? {
        let (link, final) = shared.withLock { shared in
            (shared.links[uuid] ?? shared.ending.first { $0.session.uuid == uuid }, shared.finals[uuid])
        }
        if let link {
            let status = link.status
            return (Int(status.ackedThrough + 1), Int(status.lastSeq + 1))
        }
        return final.map { (Int($0.acked + 1), Int($0.last + 1)) }
    }

    /// The last failure this sink saw, in one sentence: a refused event, a failed connect, or
    /// trouble with the local log.
    var lastFailure: String? {
        lastServerError ?? lastConnectReport ?? lastLocalProblem
    }

    /// How many earlier sessions from the local log this sink delivers (once its first session
    /// has begun).
    package var catchUpCount: Int { shared.withLock { $0.catchingUp.count } }

    /// Where the sink stands, read at once: what an app shows in a debug screen or logs.
    public struct Status: Sendable, Equatable {
        /// A session's connection is welcomed and streaming.
        public var isConnected: Bool
        /// The server the sessions last reached (with fallbacks, the one they moved to), or
        /// `nil` before any welcome.
        public var server: URL?
        /// Connections welcomed so far, over all sessions (the first and every reconnect).
        public var connections: Int
        /// Events written that the server has not acknowledged yet, in the sessions this sink
        /// serves and the earlier ones it delivers from the local log.
        public var undelivered: Int
        /// Events whose state change was dropped to stay within the sink's capacity while the
        /// server was away (sent `coalesced`: the action is kept, its patch is not).
        public var droppedStates: Int
        /// Earlier sessions of this app found in the local log and being delivered.
        public var catchingUp: Int
        /// The device's copy of the events (`nil` without a local log, or before the first
        /// session).
        public var localLogPath: String?
        /// The latest trouble, in one sentence naming the server or file: an event the server
        /// refused or that was kept from it, a failed connect, or a local log that cannot be
        /// used. `nil` when there has been none.
        public var problem: String?
    }

    /// Where the sink stands now.
    public var status: Status {
        Status(isConnected: isConnected, server: currentServer, connections: connectionCount, undelivered: undeliveredCount,
               droppedStates: droppedStateCount, catchingUp: catchUpCount, localLogPath: localLogPath, problem: lastFailure)
    }

    /// Whether the last ``flush()`` saw every event acknowledged.
    package var lastFlushAcknowledged: Bool {
        shared.withLock { $0.lastFlushAcked }
    }

    // The counts below cover the sessions the sink still serves (not those whose `end` the
    // server has received).

    /// `true` while a session's connection is welcomed and streaming.
    package var isConnected: Bool { statuses.contains { $0.connected } }

    /// Events written but not yet acknowledged, over all sessions.
    package var unacknowledgedCount: Int { statuses.reduce(0) { $0 + $1.unacked } }

    /// Events whose state change was dropped to stay within ``capacity`` (sent `coalesced`).
    package var droppedStateCount: Int { statuses.reduce(0) { $0 + $1.droppedStates } }

    /// Connections welcomed so far, over all sessions (the first one and every reconnect).
    package var connectionCount: Int { statuses.reduce(0) { $0 + $1.connections } }

    /// The last `error` the server sent (a refused event, a protocol problem), or the sentence
    /// about the last event kept from the server because it would refuse it (a state over its
    /// `--max-state`, a message over its largest), if any.
    package var lastServerError: String? { statuses.lazy.compactMap(\.lastError).first }

    /// Why the last failed connection attempt failed (the server refused the upgrade, nothing
    /// listens, …), if one has failed.
    package var lastConnectFailure: String? { shared.withLock { $0.latestFailure } }

    /// The last sentence reported about a failed connect, with the URL and what to do (what
    /// `report` was given), if one was.
    package var lastConnectReport: String? { shared.withLock { $0.latestReport } }

    /// Connection attempts made so far, over all sessions (each retry counts).
    var connectAttempts: Int {
        // Finished links are let go (and their attempts kept aside) as the statuses are read.
        let current = statuses.filter { !$0.finished }.reduce(0) { $0 + $1.attempts }
        return current + shared.withLock { $0.retiredAttempts }
    }

    /// The sessions' statuses; links that delivered their whole session are let go.
    var statuses: [ServerLinkStatus] {
        let links = shared.withLock { $0.links }
        let statuses = links.mapValues(\.status)
        let finished = statuses.filter { $0.value.finished }.map(\.key)
        if !finished.isEmpty {
            shared.withLock { shared in
                for uuid in finished where shared.links[uuid] === links[uuid] {
                    shared.links[uuid] = nil
                    shared.retiredAttempts += statuses[uuid]?.attempts ?? 0
                    if let status = statuses[uuid] { shared.finals[uuid] = (status.ackedThrough, status.lastSeq) }
                }
            }
        }
        return Array(statuses.values)
    }
}
