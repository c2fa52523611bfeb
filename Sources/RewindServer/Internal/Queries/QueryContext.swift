import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWebSocket
import RewindWire

/// One kind of inspector request: its handler, made from the request's members.
protocol InspectorQuery {
    /// The reply to send now, or `nil` when it is sent later (subscriptions, commands).
    func answer(in context: QueryContext) throws(WireError) -> JSONValue?
    /// What a `reply-too-large` error suggests asking for instead.
    var askInstead: String { get }
}

extension InspectorQuery {
    var askInstead: String { "ask for less at once" }
}

/// A request about one stored session, named as the inspector named it (an id, a uuid prefix
/// or `latest`): the handler answers about the session the name resolves to.
protocol SessionQuery: InspectorQuery {
    var id: JSONValue? { get }
    /// The session's name as sent.
    var session: String { get }
    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue?
}

extension SessionQuery {
    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        try answer(about: context.resolve(session, id: id), in: context)
    }
}

/// What every query handler works with: the readers (each read within the query's time budget),
/// the live side of the server, and the errors a failed read becomes.
struct QueryContext: Sendable {
    let readers: ReaderPool
    let hub: InspectorHub
    let relay: CommandRelay

    /// The sessions an app streams now: to this server, or on a shared store to any server on it.
    func liveSessionIDs() -> Set<Int64> {
        let here = ingest.liveSessionIDs()
        guard let cluster = relay.cluster else { return here }
        return here.union(cluster.liveSessionIDs())
    }
    let ingest: AppIngest
    let readOnly: Bool
    let limits: InspectorQueries.Limits

    /// Runs `body` on a reader within the time budget; a `scan` waits for a scan slot first.
    func read<T>(_ id: JSONValue?, scan: Bool = false, _ body: (LogReader) throws(LogError) -> T) throws(WireError) -> T {
        do {
            let seconds = limits.queryTimeBudget
            return try readers.withReader(scan: scan) { reader in
                try reader.withTimeBudget(seconds: seconds) { () throws(LogError) in try body(reader) }
            }
        } catch let error as LogError {
            throw wireError(error, id: id)
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    /// The session `name` names (an id, a uuid prefix or `latest`).
    func resolve(_ name: String, id: JSONValue?) throws(WireError) -> SessionInfo {
        try read(id) { reader throws(LogError) in try reader.session(named: name) }
    }

    /// Runs `body` on the session's timeline, read within the time budget.
    func replay<T>(_ session: SessionInfo, id: JSONValue?, scan: Bool = false,
                   _ body: (Timeline) throws(ReplayError) -> T) throws(WireError) -> T {
        do {
            let seconds = limits.queryTimeBudget
            return try readers.withReader(scan: scan) { reader in
                try reader.withTimeBudget(seconds: seconds) { () throws(ReplayError) in
                    let timeline = try Timeline(reader: reader, session: session.id, options: .uncached)
                    return try body(timeline)
                }
            }
        } catch let error as ReplayError {
            switch error {
            case .seqOutOfRange:
                throw WireError(.unknownSeq, error.description, id: id)
            case .log(let log):
                throw wireError(log, id: id)
            case .brokenChain:
                throw WireError(.storage, error.description, id: id)
            }
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    /// The state at `seq` of `session`.
    func state(at seq: Int64, of session: SessionInfo, id: JSONValue?, scan: Bool = false) throws(WireError) -> JSONValue {
        try replay(session, id: id, scan: scan) { timeline throws(ReplayError) in try timeline.state(at: seq) }
    }

    private func wireError(_ error: LogError, id: JSONValue?) -> WireError {
        if error.isInterrupted {
            return WireError(.queryTimeout, "the query ran past its time budget of \(limits.queryTimeBudget.formatted()) s and was stopped; narrow it (a shorter text filter, a typeGlob, a smaller limit or range)", id: id)
        }
        switch error.kind {
        case .unknownSession, .ambiguousSession:
            return WireError(.unknownSession, error.description, id: id)
        default:
            return WireError(.storage, error.description, id: id)
        }
    }
}
