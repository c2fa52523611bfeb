import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWebSocket
import RewindWire

/// Answers inspectors' requests off the service thread, on reader connections of its own.
/// Requests of one inspector are handled in order, one at a time; inspectors with requests
/// waiting take turns (one request per turn, round-robin, through a ``FairInbox``), and the
/// reader pool serves them in turn too, so one inspector's pipelined requests keep another
/// waiting for about one request. Each kind of request has a handler of its own (`Queries/`).
///
/// Bounds: at most ``Limits/maxInFlight`` requests of one inspector wait or run (more are
/// refused at once with `too-many-requests`); each query has a time budget; a reply that would
/// not fit the connection's output queue becomes `reply-too-large` (an `events` page is cut to
/// fit instead); an inspector that does not read its replies is closed with 1008.
final class InspectorQueries: @unchecked Sendable {
    struct Limits {
        /// The largest reply one connection can queue (its output queue's byte bound).
        var maxReplyBytes: Int
        var maxInFlight = 16
        var queryTimeBudget: Double = 5
    }

    private struct Inspector {
        let connection: WebSocketConnection
        var errors = 0
        /// Requests accepted and not yet done with (their reply queued, or handed on).
        var unsettled = 0
    }

    /// The inspectors, their requests and whose turn is next.
    private struct Turns {
        var inspectors: [UInt64: Inspector] = [:]
        /// Accepted requests not yet answered, by connection: an inspector whose request is
        /// being handled is out of line until it is answered. Its `limit` is ``Limits/maxInFlight``.
        var requests: FairInbox<UInt64, [UInt8]>
    }

    private let context: QueryContext
    private let maxErrors: Int
    private let limits: Limits
    /// One block per turn in line: a turn is queued whenever an inspector joins the line.
    private let workers = DispatchQueue(label: "rewind.server.queries", attributes: .concurrent)
    /// Answers requests refused for being too many, off the service thread and off the workers.
    private let refusals = DispatchQueue(label: "rewind.server.refusals")
    private let perInspector: Mutex<Turns>
    /// What `--metrics` counts here: errors sent.
    private let metrics: ServerMetrics?

    /// Requests accepted and not yet done with, over every inspector (a scrape reads it).
    var inFlightCount: Int { perInspector.withLock { $0.inspectors.values.reduce(0) { $0 + $1.unsettled } } }

    init(store: any LogStore, hub: InspectorHub, relay: CommandRelay, ingest: AppIngest, readOnly: Bool, maxErrors: Int,
         limits: Limits, metrics: ServerMetrics? = nil) throws(LogError) {
        self.metrics = metrics
        // Three readers, at most two of them scanning: a quick query never waits behind scans.
        let readers = try ReaderPool(store: store, count: 3, maxScans: 2)
        context = QueryContext(readers: readers, hub: hub, relay: relay, ingest: ingest, readOnly: readOnly, limits: limits)
        self.maxErrors = maxErrors
        self.limits = limits
        perInspector = Mutex(Turns(requests: FairInbox(rotation: .rejoinWhenFinished, limit: limits.maxInFlight)))
    }

    /// Service thread: a request from an inspector.
    func receive(_ bytes: [UInt8], from connection: WebSocketConnection) {
        let admission = perInspector.withLock { turns -> FairInbox<UInt64, [UInt8]>.Admission in
            let admission = turns.requests.append(bytes, to: connection.id)
            if admission != .refused {
                turns.inspectors[connection.id, default: Inspector(connection: connection)].unsettled += 1
            }
            return admission
        }
        guard admission != .refused else {
            let maxInFlight = limits.maxInFlight
            refusals.async {
                let id = (try? JSONValue(parsing: bytes))?["id"]
                let error = WireError(.tooManyRequests, "\(maxInFlight) requests of this inspector are already waiting for replies; send more as replies arrive", id: id)
                self.metrics?.sentError(code: error.code.rawValue)
                self.deliver(error.json.serializedBytes(.compact), to: connection)
            }
            return
        }
        // Not running and not in line before: it joined the end of the line, and has a turn.
        if admission.joinedLine { workers.async { self.takeTurn() } }
    }

    /// Handles one request of the inspector whose turn it is; one turn is queued for every time
    /// an inspector joins the line, so every accepted request is handled.
    private func takeTurn() {
        let next = perInspector.withLock { turns -> (WebSocketConnection, [UInt8])? in
            guard let turn = turns.requests.next(), let inspector = turns.inspectors[turn.key] else { return nil }
            return (inspector.connection, turn.item)
        }
        guard let (connection, bytes) = next else { return }
        let outcome = handle(bytes, from: connection)
        // No longer in flight before its reply goes out: an inspector that sends its next request
        // as each reply arrives never finds the server still counting the answered one.
        let again = perInspector.withLock { $0.requests.finish(connection.id) }
        if again { workers.async { self.takeTurn() } }
        if let reply = outcome.reply { deliver(reply, to: connection) }
        if let reason = outcome.closeReason { connection.close(code: .policyViolation, reason: reason) }
        perInspector.withLock { $0.inspectors[connection.id]?.unsettled -= 1 }
    }

    /// Service thread: an inspector went away; its requests not yet started go with it.
    func closed(_ connection: WebSocketConnection) {
        perInspector.withLock { turns in
            turns.inspectors[connection.id] = nil
            turns.requests.remove(connection.id)
        }
    }

    /// Requests of `connection` accepted and not yet done with: their replies queued on the
    /// connection, or handed on (subscriptions, commands).
    func unsettled(for connection: WebSocketConnection) -> Int {
        perInspector.withLock { $0.inspectors[connection.id]?.unsettled ?? 0 }
    }

    /// Queues `bytes`; an inspector whose queue is full does not read its replies, and dropping
    /// one silently would leave its request unanswered, so it is closed instead.
    private func deliver(_ bytes: [UInt8], to connection: WebSocketConnection) {
        if connection.send(textBytes: bytes) == .queueFull {
            connection.close(code: .policyViolation,
                             reason: "this inspector does not read its replies (\(connection.queuedByteCount) bytes wait)")
        }
    }

    /// What handling one request leads to: a reply to send now (none when it is sent later), and
    /// whether the connection is then closed.
    private struct Outcome {
        var reply: [UInt8]?
        var closeReason: String?
    }

    private func handle(_ bytes: [UInt8], from connection: WebSocketConnection) -> Outcome {
        do throws(WireError) {
            let request = try InspectorRequest(frame: bytes)
            let query = Self.query(for: request, from: connection)
            var outcome = Outcome()
            if let reply = try query.answer(in: context) {
                let text = reply.serializedBytes(.compact)
                guard text.count <= limits.maxReplyBytes else {
                    throw WireError(.replyTooLarge, "the reply would be \(text.count) bytes, over this connection's limit of \(limits.maxReplyBytes) bytes; \(query.askInstead)", id: request.id)
                }
                outcome.reply = text
            }
            perInspector.withLock { $0.inspectors[connection.id]?.errors = 0 }
            return outcome
        } catch {
            let errors = perInspector.withLock { turns -> Int in
                turns.inspectors[connection.id]?.errors += 1
                return turns.inspectors[connection.id]?.errors ?? 0
            }
            metrics?.sentError(code: error.code.rawValue)
            return Outcome(reply: error.json.serializedBytes(.compact),
                           closeReason: errors >= maxErrors ? "\(errors) protocol errors in a row" : nil)
        }
    }

    /// The handler of `request`'s kind.
    private static func query(for request: InspectorRequest, from connection: WebSocketConnection) -> any InspectorQuery {
        switch request {
        case .sessions(let id):
            SessionsQuery(id: id)
        case .sessionPage(let page):
            SessionPageQuery(page: page)
        case .subscribe(let id, let session):
            SubscriptionQuery(id: id, session: session, subscribe: true, connection: connection)
        case .unsubscribe(let id, let session):
            SubscriptionQuery(id: id, session: session, subscribe: false, connection: connection)
        case .events(let id, let session, let from, let limit, let typeGlob, let text):
            EventsQuery(id: id, session: session, from: from, limit: limit, typeGlob: typeGlob, text: text)
        case .state(let id, let session, let seq, let path):
            StateQuery(id: id, session: session, seq: seq, path: path)
        case .diff(let id, let session, let from, let to):
            DiffQuery(id: id, session: session, from: from, to: to)
        case .blame(let id, let session, let path):
            BlameQuery(id: id, session: session, path: path)
        case .find(let find):
            FindQuery(find: find)
        case .compare(let id, let session, let other, let seq):
            CompareQuery(id: id, session: session, other: other, seq: seq)
        case .command(let command):
            CommandQuery(command: command, connection: connection)
        }
    }
}
