import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindSupport

/// A small stand-in for `rewind serve` on `/app`: answers hello with welcome, stores each seq
/// once (rebuilding the state and checking every hash), acks, and can drop connections and send
/// commands.
final class ProtocolPeer: WebSocketServerDelegate, @unchecked Sendable {
    struct Snapshot {
        var hellos: [AppMessage.Hello] = []
        var authorizations: [String?] = []
        /// Per session uuid, in the order sessions said hello.
        var sessions: [String: Stored] = [:]
        var sessionOrder: [String] = []
        var problems: [String] = []
        var results: [AppMessage.CommandResult] = []
        var connectionsOpened = 0
        /// Events refused with `hash-mismatch` (``ProtocolPeer/refuse(_:)``).
        var refusals = 0
        /// Every frame received, byte for byte.
        var frames: [[UInt8]] = []
        /// How many events each `event` (1) or `events` frame carried, in arrival order.
        var eventsPerFrame: [Int] = []

        /// The first session's events (the live one).
        var events: [WireEvent] { sessionOrder.first.flatMap { sessions[$0]?.events } ?? [] }
        var states: [JSONValue] { sessionOrder.first.flatMap { sessions[$0]?.states } ?? [] }
        var duplicates: Int { sessions.values.reduce(0) { $0 + $1.duplicates } }
    }

    /// What one session stored.
    struct Stored {
        /// Stored events by seq, in order, each once.
        var events: [WireEvent] = []
        /// The state after each stored seq.
        var states: [JSONValue] = []
        var duplicates = 0
        var ended = false
        /// The state hash the session's hello announced.
        var hashVersion: StateHashVersion = .v1
    }

    private let lock = Mutex()
    private var snapshot = Snapshot()
    private var connections: [WebSocketConnection] = []
    private var sessionOf: [UInt64: String] = [:]
    /// Connections the peer is dropping: what still arrives on them is ignored, as if lost.
    private var dropping: Set<UInt64> = []
    private var receivedOnCurrent = 0
    /// Closes the connection after this many events arrive on it (once), when set.
    private var dropAfter: Int?
    private var acks = true
    /// Seqs refused (with `hash-mismatch`) whenever they come with a state change.
    private var refusing: Set<Int64> = []
    /// Connections that were sent a refusal: the gaps after it are expected.
    private var refused: Set<UInt64> = []
    private var server: WebSocketServer?
    /// What `welcome` states (nothing when `nil`, as an older server).
    private let limits: WireLimits?

    /// Starts on `port` (a free one when 0).
    init(port: Int = 0, dropAfter: Int? = nil, limits: WireLimits? = nil) throws {
        self.dropAfter = dropAfter
        self.limits = limits
        let server = WebSocketServer(
            configuration: WebSocketServerConfiguration(
                port: port, endpoints: [WebSocketEndpoint(path: AppMessage.path, subprotocol: AppMessage.subprotocol)]),
            delegate: self)
        try server.start()
        self.server = server
    }

    var port: Int { server?.port ?? 0 }

    /// Refuses the event with `seq` whenever it carries a state change, as a server does an
    /// event whose hash it cannot match.
    func refuse(_ seq: Int64) {
        lock.withLock { _ = refusing.insert(seq) }
    }
    var url: URL { URL(string: "ws://127.0.0.1:\(port)")! }
    var state: Snapshot { lock.withLock { snapshot } }

    /// Stops acknowledging events (they are still stored).
    func holdAcks() {
        lock.withLock { acks = false }
    }

    func shutdown() {
        server?.shutdown()
    }

    /// Sends a command on the connection of session `uuid`, else of the first session. Name the
    /// session when the app may also deliver an older one from its local log (a catch-up of
    /// another run that used the same port): that one says hello first.
    /// Sends `command` to the session's open connection; while it has none (the app is between
    /// two connections, or its hello is not in yet) it waits for one, up to `timeout` seconds,
    /// rather than drop the command without a word.
    func send(_ command: Command, session uuid: String? = nil, timeout: Double = 30) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let connection = lock.withLock { () -> WebSocketConnection? in
                guard let target = uuid ?? snapshot.sessionOrder.first else { return nil }
                return connections.last { sessionOf[$0.id] == target && $0.isOpen }
            }
            if let connection {
                _ = connection.send(text: ServerToApp.command(command).json.serialized())
                return
            }
            guard Date() < deadline else { return }
            usleep(5_000)
        }
    }

    func didOpen(_ connection: WebSocketConnection) {
        lock.withLock {
            connections.append(connection)
            receivedOnCurrent = 0
            snapshot.connectionsOpened += 1
            snapshot.authorizations.append(connection.request?.headers["authorization"])
        }
    }

    func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
        let reply: ServerToApp?
        let drop: Bool
        lock.withLock { snapshot.frames.append(message.bytes) }
        do {
            let decoded = try AppMessage(frame: message.bytes)
            (reply, drop) = lock.withLock { handle(decoded, on: connection) }
        } catch {
            lock.withLock { snapshot.problems.append("\(error)") }
            return
        }
        if let reply { _ = connection.send(text: reply.json.serialized()) }
        if drop { connection.close(code: .goingAway) }
    }

    /// With the lock held.
    private func handle(_ message: AppMessage, on connection: WebSocketConnection) -> (ServerToApp?, Bool) {
        switch message {
        case .hello(let hello):
            snapshot.hellos.append(hello)
            sessionOf[connection.id] = hello.session
            if snapshot.sessions[hello.session] == nil {
                snapshot.sessions[hello.session] = Stored(hashVersion: hello.hashVersion)
                snapshot.sessionOrder.append(hello.session)
            }
            let next = snapshot.sessions[hello.session]?.events.count ?? 0
            return (.welcome(id: hello.id, session: hello.session, nextSeq: Int64(next), limits: limits), false)
        case .event(let event):
            snapshot.eventsPerFrame.append(1)
            return take(event, on: connection)
        case .events(let batch):
            snapshot.eventsPerFrame.append(batch.events.count)
            if let broken = batch.broken { snapshot.problems.append("broken batch: \(broken)") }
            var reply: ServerToApp?
            for event in batch.events {
                let (ack, drop) = take(event, on: connection)
                if ack != nil { reply = ack }
                if drop { return (nil, true) }
            }
            return (reply, false)
        case .result(let result):
            snapshot.results.append(result)
        case .end(let id, _):
            // As rewind serve does: the end stored, `ended` says so.
            if let uuid = sessionOf[connection.id] {
                snapshot.sessions[uuid]?.ended = true
                return (.ended(id: id, session: uuid), false)
            }
        }
        return (nil, false)
    }

    /// With the lock held: one event, from an `event` frame or a batch.
    private func take(_ event: WireEvent, on connection: WebSocketConnection) -> (ServerToApp?, Bool) {
        if dropping.contains(connection.id) { return (nil, false) }
        guard let uuid = sessionOf[connection.id], var stored = snapshot.sessions[uuid] else {
            snapshot.problems.append("event before hello")
            return (nil, false)
        }
        defer { snapshot.sessions[uuid] = stored }
        receivedOnCurrent += 1
        let drop = dropAfter.map { receivedOnCurrent >= $0 } ?? false
        if drop {
            dropAfter = nil
            dropping.insert(connection.id)
        }
        let next = Int64(stored.events.count)
        let carriesState = !(event.coalesced && (event.patch ?? []) == [] && event.keyframe == nil)
        if event.seq == next, refusing.contains(event.seq), carriesState {
            snapshot.refusals += 1
            refused.insert(connection.id)
            return (.error(WireError(.hashMismatch, "event \(event.seq): the state after it hashes to 0000000000000000, the event says \(wireHash(event.hash))")), drop)
        }
        if event.seq > next, refused.contains(connection.id) { return (nil, drop) }
        if event.seq < next {
            stored.duplicates += 1
        } else if event.seq > next {
            snapshot.problems.append("gap: got \(event.seq), expected \(next)")
            return (nil, drop)
        } else {
            store(event, in: &stored)
        }
        return (acks && !drop ? .ack(seq: Int64(stored.events.count) - 1) : nil, drop)
    }

    private func store(_ event: WireEvent, in stored: inout Stored) {
        var state = stored.states.last ?? .null
        if let keyframe = event.keyframe {
            state = keyframe
        } else {
            do {
                try state.apply(try JSONPatch(json: event.patch ?? []))
            } catch {
                snapshot.problems.append("patch at \(event.seq): \(error)")
            }
        }
        if state.hash(stored.hashVersion) != event.hash { snapshot.problems.append("hash at \(event.seq)") }
        stored.events.append(event)
        stored.states.append(state)
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass (generous:
/// the whole suite runs at once on few cores, and a deadline only bounds how long a failure takes).
@MainActor
func waitUntil(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

extension ProtocolPeer {
    /// A peer listening on `port`, tried again while the port is still in use, until `within`:
    /// a test that lets a reserved port go and listens there next may find it held a moment
    /// longer (a full run once saw `Address already in use` there).
    static func listening(on port: Int, within limit: Duration = .seconds(10)) async throws -> ProtocolPeer {
        let deadline = ContinuousClock.now + limit
        while true {
            do {
                return try ProtocolPeer(port: port)
            } catch where ContinuousClock.now < deadline && "\(error)".contains("Address already in use") {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
