import Foundation
import RewindJSON

extension LogStoreWriter {
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
        let meta = sessionMeta
        if let existing = try sessionID(uuid: uuid) {
            throw LogError(kind: .invalidEvent(session: existing, seq: 0),
                           message: "an import starts a new session, and uuid \(uuid) is taken", path: path)
        }
        let id = try openSession(uuid: uuid, app: app, startedAt: startedAt, meta: meta, replayOf: nil, run: nil, hashVersion: .v1, owner: nil)
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
            release(session: id)
        } catch {
            _ = try? prune(sessions: [id])
            release(session: id)
            throw error
        }
        return id
    }
}
