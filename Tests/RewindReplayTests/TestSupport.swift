import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindTestSupport

/// A session written through `EventBuilder` and `LogWriter`, with what each seq must hold.
struct RecordedSession {
    let directory: TemporaryDirectory
    let path: String
    let sessionID: Int64
    /// The state the log records after each seq (for a coalesced event, the one before it).
    let states: [JSONValue]
    /// The events as built.
    let events: [LogEvent]

    var lastSeq: Int64 { Int64(states.count - 1) }

    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Records `count` events (plus seq 0) of a todo-style app driven by `seed`; every
    /// `coalesceEvery`-th event is coalesced when given.
    static func make(count: Int, seed: UInt64 = 1, policy: KeyframePolicy = KeyframePolicy(maxEvents: 100),
                     coalesceEvery: Int? = nil, in directory: TemporaryDirectory? = nil, uuid: String = "3f2a0000-0000-4000-8000-000000000001",
                     hashVersion: StateHashVersion = .v1) throws -> RecordedSession {
        let directory = try directory ?? TemporaryDirectory()
        let path = directory.path("log.db")
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let id = try writer.openSession(uuid: uuid, app: "Todo", startedAt: start, meta: ["version": "1.0"], hashVersion: hashVersion)
        var builder = EventBuilder(sessionID: id, policy: policy, hashVersion: hashVersion)
        var random = SplitMix64(seed: seed)
        var state = initialState
        var recorded = state
        var states = [state]
        var events = [builder.initial(state: state, at: start)]
        for seq in 1...count {
            let action = StateMutator.mutate(&state, seq: seq, random: &random)
            let at = start.addingTimeInterval(Double(seq) / 10)
            if let coalesceEvery, seq % coalesceEvery == 0 {
                events.append(builder.skipped(action: action, at: at, durationNs: Int64(seq)))
            } else {
                events.append(builder.next(action: action, state: state, at: at, durationNs: Int64(seq), cause: seq % 5 == 0 ? Int64(seq - 1) : nil))
                recorded = state
            }
            states.append(recorded)
        }
        var index = 0
        while index < events.count {
            writer.append(Array(events[index..<min(index + 97, events.count)]))
            index += 97
        }
        try writer.flush()
        return RecordedSession(directory: directory, path: path, sessionID: id, states: states, events: events)
    }

    static let initialState: JSONValue = [
        "count": 0,
        "user": ["name": "Ada", "email": "ada@example.com", "prefs": ["theme": "light", "lang": "en"]],
        "todos": [["id": 0, "title": "first", "done": false]],
        "flags": [:],
    ]
}

/// Changes a state the way a reducer would, choosing the change at random.
enum StateMutator {
    /// Mutates `state` and returns the action that "did" it.
    static func mutate(_ state: inout JSONValue, seq: Int, random: inout SplitMix64) -> JSONValue {
        guard case .object(var root) = state else { return "noop" }
        var todos = root["todos"]?.arrayValue ?? []
        var user = root["user"]?.objectValue ?? [:]
        var flags = root["flags"]?.objectValue ?? [:]
        let action: JSONValue
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            root["count"] = .number(JSONNumber(seq))
            action = ["type": "counter/set", "value": .number(JSONNumber(seq))]
        case 1, 2:
            let index = Int.random(in: 0...todos.count, using: &random)
            todos.insert(["id": .number(JSONNumber(seq)), "title": .string("todo \(seq)"), "done": false], at: index)
            action = ["type": "todos/insert", "index": .number(JSONNumber(index))]
        case 3 where !todos.isEmpty:
            let index = Int.random(in: 0..<todos.count, using: &random)
            if case .object(var todo) = todos[index] {
                todo["done"] = .bool(!(todo["done"]?.boolValue ?? false))
                todos[index] = .object(todo)
            }
            action = ["type": "todos/toggle", "index": .number(JSONNumber(index))]
        case 4 where todos.count > 2:
            let index = Int.random(in: 0..<todos.count, using: &random)
            todos.remove(at: index)
            action = ["type": "todos/remove", "index": .number(JSONNumber(index))]
        case 5:
            user["name"] = .string("user \(Int.random(in: 0..<20, using: &random))")
            action = ["type": "user/rename"]
        case 6:
            var prefs = user["prefs"]?.objectValue ?? [:]
            prefs["theme"] = .string(Bool.random(using: &random) ? "dark" : "light")
            user["prefs"] = .object(prefs)
            action = ["type": "prefs/theme"]
        case 7:
            let key = "f\(Int.random(in: 0..<6, using: &random))"
            if flags[key] == nil { flags[key] = .number(JSONNumber(seq)) } else { _ = flags.removeValue(forKey: key) }
            action = ["type": "flags/toggle", "key": .string(key)]
        case 8 where Int.random(in: 0..<4, using: &random) == 0:
            user = ["name": .string("fresh \(seq)"), "email": "new@example.com", "prefs": ["theme": "dark", "lang": "fr"]]
            action = ["type": "user/replace"]
        default:
            action = ["type": "noop"]
        }
        if todos.count > 30 { todos.removeLast(todos.count - 30) }
        root["todos"] = .array(todos)
        root["user"] = .object(user)
        root["flags"] = .object(flags)
        state = .object(root)
        return action
    }
}
