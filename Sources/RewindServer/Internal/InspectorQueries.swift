import Dispatch
import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWebSocket
import RewindWire

/// Answers inspectors' requests off the service thread, on reader connections of its own.
/// Requests of one inspector are handled in order (a serial queue per inspector); different
/// inspectors run side by side, bounded by the reader pool.
final class InspectorQueries: @unchecked Sendable {
    private let readers: ReaderPool
    private let hub: InspectorHub
    private let relay: CommandRelay
    private let ingest: AppIngest
    private let readOnly: Bool
    private let maxErrors: Int
    private let workers = DispatchQueue(label: "rewind.server.queries", attributes: .concurrent)
    private let perInspector = Locked<[UInt64: (queue: DispatchQueue, errors: Int)]>([:])

    init(logPath: String, hub: InspectorHub, relay: CommandRelay, ingest: AppIngest, readOnly: Bool, maxErrors: Int) throws(LogError) {
        readers = try ReaderPool(path: logPath, count: 2)
        self.hub = hub
        self.relay = relay
        self.ingest = ingest
        self.readOnly = readOnly
        self.maxErrors = maxErrors
    }

    func receive(_ bytes: [UInt8], from connection: WebSocketConnection) {
        let queue = perInspector.withLock { all -> DispatchQueue in
            if let entry = all[connection.id] { return entry.queue }
            let queue = DispatchQueue(label: "rewind.server.inspector", target: workers)
            all[connection.id] = (queue, 0)
            return queue
        }
        queue.async { self.handle(bytes, from: connection) }
    }

    func closed(_ connection: WebSocketConnection) {
        perInspector.withLock { _ = $0.removeValue(forKey: connection.id) }
    }

    private func handle(_ bytes: [UInt8], from connection: WebSocketConnection) {
        do throws(WireError) {
            let request = try InspectorRequest(frame: bytes)
            if let reply = try answer(request, from: connection) {
                _ = connection.send(textBytes: reply.serializedBytes(.compact))
            }
            perInspector.withLock { $0[connection.id]?.errors = 0 }
        } catch {
            _ = connection.send(textBytes: error.json.serializedBytes(.compact))
            let errors = perInspector.withLock { all -> Int in
                all[connection.id]?.errors += 1
                return all[connection.id]?.errors ?? 0
            }
            if errors >= maxErrors {
                connection.close(code: .policyViolation, reason: "\(errors) protocol errors in a row")
            }
        }
    }

    /// The reply to send now, or `nil` when it is sent later (subscriptions, commands).
    private func answer(_ request: InspectorRequest, from connection: WebSocketConnection) throws(WireError) -> JSONValue? {
        let id = request.id
        switch request {
        case .sessions:
            let live = ingest.liveSessionIDs()
            let sessions = try read(id) { reader throws(LogError) in try reader.sessions() }
            return InspectorReplies.reply("sessions", id: id, ["sessions": .array(sessions.map { wireSession($0, live: live.contains($0.id)).json })])
        case .subscribe(_, let name), .unsubscribe(_, let name):
            let isSubscribe = request.type == "subscribe"
            let session = name == "*" ? nil : try resolve(name, id: id)
            var members: JSONObject = ["session": .string(session?.uuid ?? "*")]
            if let session { members["sessionId"] = InspectorReplies.number(session.id) }
            let reply = InspectorReplies.reply(request.type, id: id, members).serializedBytes(.compact)
            if isSubscribe {
                hub.subscribe(connection, session: session?.id, reply: reply)
            } else {
                hub.unsubscribe(connection, session: session?.id, reply: reply)
            }
            return nil
        case .events(_, let name, let from, let limit, let typeGlob, let text):
            let session = try resolve(name, id: id)
            let (events, initial) = try read(id) { reader throws(LogError) in
                let events = try reader.events(session: session.id, from: from, typeGlob: typeGlob, text: text, limit: limit)
                let initial = events.first?.seq == 0 ? try reader.keyframe(atOrBefore: 0, session: session.id)?.state : nil
                return (events, initial)
            }
            let list = events.map { InspectorReplies.event($0, keyframe: $0.seq == 0 ? initial : nil) }
            let next: JSONValue = events.count == limit ? InspectorReplies.number(events[events.count - 1].seq + 1) : .null
            return InspectorReplies.reply("events", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                             "events": .array(list), "next": next])
        case .state(_, let name, let seq, let path):
            let session = try resolve(name, id: id)
            let state = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
            var members: JSONObject = ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                       "seq": InspectorReplies.number(seq), "hash": .string(wireHash(state.stableHash))]
            if let path {
                let value = path.resolve(in: state)
                members["path"] = .string(path.description)
                members["exists"] = .bool(value != nil)
                members["value"] = value ?? .null
            } else {
                members["exists"] = true
                members["value"] = state
            }
            return InspectorReplies.reply("state", id: id, members)
        case .diff(_, let name, let from, let to):
            let session = try resolve(name, id: id)
            let diff = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.diff(from: from, to: to) }
            return InspectorReplies.reply("diff", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                           "from": InspectorReplies.number(from), "to": InspectorReplies.number(to),
                                                           "patch": diff.forward.json, "inverse": diff.inverse.json])
        case .blame(_, let name, let path):
            let session = try resolve(name, id: id)
            let entries = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.blame(path: path) }
            return InspectorReplies.reply("blame", id: id, ["session": .string(session.uuid), "sessionId": InspectorReplies.number(session.id),
                                                            "path": .string(path.description), "entries": .array(entries.map(InspectorReplies.blame))])
        case .command(var command):
            guard !readOnly else { throw WireError(.readOnly, "the server runs with --read-only: commands are refused", id: id) }
            let session = try resolve(command.session ?? "", id: id)
            guard let app = ingest.appConnection(for: session.id) else {
                throw WireError(.appOffline, "no app is connected for session \(session.uuid)", id: id)
            }
            if command.kind == .jump, command.arguments["state"] == nil {
                // The app shows the state whole: fill it in from the log when only seq was given.
                guard case .number(let n)? = command.arguments["seq"], let seq = n.int64Value else {
                    throw WireError(.badMessage, "command: a jump needs \"seq\"", id: id)
                }
                command.arguments["state"] = try replay(session, id: id) { timeline throws(ReplayError) in try timeline.state(at: seq) }
            }
            relay.send(command, to: app, from: connection)
            return nil
        }
    }

    private func read<T>(_ id: JSONValue?, _ body: (LogReader) throws(LogError) -> T) throws(WireError) -> T {
        do {
            return try readers.withReader { reader in try body(reader) }
        } catch let error as LogError {
            throw Self.wireError(error, id: id)
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    private func resolve(_ name: String, id: JSONValue?) throws(WireError) -> SessionInfo {
        try read(id) { reader throws(LogError) in try reader.session(named: name) }
    }

    private func replay<T>(_ session: SessionInfo, id: JSONValue?, _ body: (Timeline) throws(ReplayError) -> T) throws(WireError) -> T {
        do {
            return try readers.withReader { reader in
                let timeline = try Timeline(reader: reader, session: session.id, options: .uncached)
                return try body(timeline)
            }
        } catch let error as ReplayError {
            switch error {
            case .seqOutOfRange:
                throw WireError(.unknownSeq, error.description, id: id)
            case .log(let log):
                throw Self.wireError(log, id: id)
            case .brokenChain:
                throw WireError(.storage, error.description, id: id)
            }
        } catch {
            throw WireError(.storage, "\(error)", id: id)
        }
    }

    private static func wireError(_ error: LogError, id: JSONValue?) -> WireError {
        switch error.kind {
        case .unknownSession, .ambiguousSession:
            WireError(.unknownSession, error.description, id: id)
        default:
            WireError(.storage, error.description, id: id)
        }
    }
}
