import Foundation
import RewindJSON

extension LogWriter {
    /// Writes an imported session: the session row, then every event in one batch, so the
    /// events are stored all together or not at all. Returns the new session's id once it is
    /// durable. When the batch fails, the session row is pruned again and the log holds what
    /// it held before.
    ///
    /// ```swift
    /// let session = try SessionImport.parse(bytes)
    /// let id = try writer.write(session, uuid: UUID().uuidString.lowercased(), app: "Todo")
    /// ```
    ///
    /// `uuid` must be new: an import never adds to a session that exists.
    public func write(_ session: ImportedSession, uuid: String, app: String) throws(LogError) -> Int64 {
        let startedAt = session.startedAt
        var sessionMeta = session.importMeta.sessionMeta
        if case .object(var object) = sessionMeta {
            if !session.redacted.isEmpty { object["redacted"] = .array(session.redacted.map { .string($0) }) }
            if !session.redactedKeys.isEmpty { object["redactedKeys"] = .array(session.redactedKeys.map { .string($0) }) }
            sessionMeta = .object(object)
        }
        let meta = sessionMeta.serialized(.compact)
        let id = try call { engine throws(LogError) in
            let existing = try engine.connection.prepare("SELECT id FROM sessions WHERE uuid = ?1")
            try existing.bind(uuid, at: 1)
            if try existing.step() {
                throw LogError(kind: .invalidEvent(session: existing.int64(0), seq: 0),
                               message: "an import starts a new session, and uuid \(uuid) is taken", path: engine.connection.path)
            }
            return try engine.openSession(uuid: uuid, app: app, startedAt: startedAt, meta: meta, replayOf: nil)
        }
        var events = session.events
        for index in events.indices { events[index].sessionID = id }
        let result = CallResult<Bool>()
        append(events) { outcome in
            switch outcome {
            case .success: result.fulfil(.success(true))
            case .failure(let error): result.fulfil(.failure(error))
            }
        }
        do throws(LogError) {
            try flush()
            _ = try result.wait().get()
            try endSession(id: id, at: session.endedAt)
        } catch {
            _ = try? prune(sessions: [id])
            throw error
        }
        return id
    }
}
