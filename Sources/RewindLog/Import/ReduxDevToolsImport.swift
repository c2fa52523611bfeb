import Foundation
import RewindJSON

/// Reads what the Redux DevTools' Export button writes, in either of its two shapes:
///
/// - the lifted state: `actionsById` (id → `{"type": "PERFORM_ACTION", "action": …,
///   "timestamp": ms}`), `computedStates` (`[{"state": …, "error"?: …}]`), `stagedActionIds`,
///   `skippedActionIds`, `committedState`, `currentStateIndex`, `nextActionId`;
/// - `{"payload": "…", "preloadedState": "…"}`, whose values are JSON texts: `payload` the
///   lifted state, `preloadedState` the store's initial state (checked, then not used:
///   `computedStates` already holds every state).
///
/// Staged action *i* produced `computedStates[i]`; the first staged action is the init action and
/// becomes seq 0. Skipped actions are imported like the others (DevTools computes a skipped
/// action's state as the state before it, so their events change nothing); their ids are kept
/// in ``ImportMeta/skippedActionIds``. Reducer errors are kept in ``ImportMeta/errors``.
/// `timestamp` (milliseconds) becomes the event's time; an action without one happened at the
/// previous action's time.
///
/// ```swift
/// let session = try ReduxDevToolsImport.parse(bytes)
/// session.events.map(\.actionType)  // ["@@INIT", "todos/add", …]
/// ```
public enum ReduxDevToolsImport {
    /// Parses `bytes` as one JSON document and reads it.
    public static func parse(_ bytes: [UInt8], options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedSession {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw ImportError(.document, "the file is not valid JSON: \(error)")
        }
        return try read(document, options: options)
    }

    /// Reads a parsed export.
    public static func read(_ document: JSONValue, options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedSession {
        guard case .object(let object) = document else {
            throw ImportError(.document, "a Redux DevTools export is a JSON object, not a JSON \(document.typeName)")
        }
        guard let payload = object["payload"] else { return try readLiftedState(object, options: options) }
        let lifted = try embeddedJSON(payload, member: "payload")
        if let preloaded = object["preloadedState"], !preloaded.isNull {
            _ = try embeddedJSON(preloaded, member: "preloadedState")
        }
        switch lifted {
        case .object(let liftedObject):
            return try readLiftedState(liftedObject, options: options)
        case .array:
            throw ImportError(.document, "payload lists actions without the states they produced, and Rewind cannot run your reducer: export the whole lifted state instead")
        default:
            throw ImportError(.document, "payload must hold the lifted state, a JSON object, not a JSON \(lifted.typeName)")
        }
    }

    /// A member whose value is JSON text, parsed.
    private static func embeddedJSON(_ value: JSONValue, member: String) throws(ImportError) -> JSONValue {
        guard case .string(let text) = value else {
            throw ImportError(.document, "\(member) must be a JSON text in a string, not a JSON \(value.typeName)")
        }
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw ImportError(.document, "\(member) is not valid JSON: \(error)")
        }
    }

    private static func readLiftedState(_ lifted: JSONObject, options: ImportOptions) throws(ImportError) -> ImportedSession {
        guard let staged = lifted["stagedActionIds"]?.arrayValue else {
            throw ImportError(.document, "the lifted state has no \"stagedActionIds\" array")
        }
        guard let actions = lifted["actionsById"]?.objectValue else {
            throw ImportError(.document, "the lifted state has no \"actionsById\" object")
        }
        guard let computed = lifted["computedStates"]?.arrayValue else {
            throw ImportError(.document, "the lifted state has no \"computedStates\" array")
        }
        guard !staged.isEmpty else {
            throw ImportError(.document, "stagedActionIds is empty: the export lacks even the init action")
        }
        var ids: [String] = []
        ids.reserveCapacity(staged.count)
        for (index, value) in staged.enumerated() {
            guard let id = value.numberValue?.int64Value else {
                throw ImportError(.document, "stagedActionIds[\(index)] is \(value), not an action id")
            }
            ids.append(String(id))
        }
        if computed.count < ids.count {
            throw ImportError(.action(ids[computed.count]), "stagedActionIds lists \(ids.count) actions but computedStates holds only \(computed.count) states, so this action has none")
        }
        if computed.count > ids.count {
            throw ImportError(.document, "computedStates holds \(computed.count) states but stagedActionIds lists only \(ids.count) actions: each staged action needs exactly one state")
        }
        let skipped = Set((lifted["skippedActionIds"]?.arrayValue ?? []).compactMap { $0.numberValue?.int64Value })

        var session = ImportedSessionBuilder(importedAt: options.importedAt)
        var meta = ImportMeta(format: .reduxDevTools, file: options.file, importedAt: options.importedAt.timeIntervalSince1970)
        for (index, id) in ids.enumerated() {
            let record = try Record(id: id, wrapper: actions[id], computed: computed[index])
            let seq = session.nextSeq
            if let error = record.error { meta.errors[seq] = error }
            if let numeric = Int64(id), skipped.contains(numeric) { meta.skippedActionIds.append(numeric) }
            session.add(action: record.action, state: record.state, at: record.at)
            options.report(index + 1)
        }
        return ImportedSession(events: session.events, importMeta: meta)
    }

    /// One staged action and the state it produced, checked.
    private struct Record {
        var action: JSONValue
        var state: JSONValue
        var at: Date?
        var error: String?

        init(id: String, wrapper: JSONValue?, computed: JSONValue) throws(ImportError) {
            guard let wrapper else {
                throw ImportError(.action(id), "stagedActionIds lists it but actionsById has no entry for it")
            }
            guard case .object(let lifted) = wrapper, let action = lifted["action"] else {
                throw ImportError(.action(id), "its entry in actionsById has no \"action\" (expected {\"type\": \"PERFORM_ACTION\", \"action\": …})")
            }
            switch lifted["timestamp"] {
            case .none, .null?:
                at = nil
            case .number(let milliseconds)?:
                let seconds = milliseconds.doubleValue / 1_000
                guard seconds.isFinite, abs(seconds) < 1e11 else {
                    throw ImportError(.action(id), "its timestamp \(milliseconds.text) is not a time in milliseconds since 1970")
                }
                at = Date(timeIntervalSince1970: seconds)
            case let other?:
                throw ImportError(.action(id), "its timestamp must be a number of milliseconds, not a JSON \(other.typeName)")
            }
            guard case .object(let entry) = computed, let state = entry["state"] else {
                throw ImportError(.action(id), "its entry in computedStates has no \"state\"")
            }
            switch entry["error"] {
            case .none, .null?: error = nil
            case .string(let message)?: error = message
            case let other?: error = other.serialized(.compact)
            }
            self.action = action
            self.state = state
        }
    }
}
