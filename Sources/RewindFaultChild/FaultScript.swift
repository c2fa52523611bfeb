import RewindJSON
import RewindSupport

/// The events the fault child sends, derived from a seed alone, so that a test can recompute
/// what any seq must hold after the child was killed.
///
/// Each seq's action comes from its own generator (seeded with the session seed and the seq),
/// so it does not depend on how far earlier runs got. About one event in ten is coalesced: its
/// action is recorded but not the state after it, as a recorder does when its queue is full.
enum FaultScript {
    /// The state at seq 0.
    static let initialState: JSONValue = ["count": 0, "items": [], "user": ["name": "Ada", "visits": 0]]

    /// The action sent as `seq` (≥ 1) of the session seeded with `seed`.
    static func action(seed: UInt64, seq: Int64) -> JSONValue {
        var random = SplitMix64(seed: seed &+ UInt64(bitPattern: seq) &* 0x9E37_79B9_7F4A_7C15)
        let n = JSONValue.number(JSONNumber(Int64(random.next() % 1_000)))
        switch random.next() % 6 {
        case 0: return ["type": "counter/add", "amount": n]
        case 1: return ["type": "items/add", "id": .number(JSONNumber(seq)), "title": .string("item \(seq)")]
        case 2: return ["type": "items/toggle", "index": n]
        case 3: return ["type": "items/remove", "index": n]
        case 4: return ["type": "user/rename", "name": .string("user \(random.next() % 50)")]
        default: return ["type": "user/visit"]
        }
    }

    /// `true` when the state after `seq` is not recorded (its event is coalesced).
    static func isCoalesced(seed: UInt64, seq: Int64) -> Bool {
        var random = SplitMix64(seed: seed ^ UInt64(bitPattern: seq) &* 0xD1B5_4A32_D192_ED03)
        return seq > 0 && random.next() % 10 == 0
    }

    /// The reducer.
    static func reduce(_ state: inout JSONValue, _ action: JSONValue) {
        guard case .object(var root) = state else { return }
        let amount = action["amount"]?.numberValue?.int64Value ?? 0
        let index = Int(action["index"]?.numberValue?.int64Value ?? 0)
        var items = root["items"]?.arrayValue ?? []
        var user = root["user"]?.objectValue ?? [:]
        switch action["type"]?.stringValue {
        case "counter/add":
            root["count"] = .number(JSONNumber((root["count"]?.numberValue?.int64Value ?? 0) + amount))
        case "items/add":
            items.append(["id": action["id"] ?? .null, "title": action["title"] ?? .null, "done": false])
            // Keep the state small however long the session runs.
            if items.count > 40 { items.removeFirst() }
        case "items/toggle" where !items.isEmpty:
            let i = index % items.count
            if case .object(var item) = items[i] {
                item["done"] = .bool(!(item["done"]?.boolValue ?? false))
                items[i] = .object(item)
            }
        case "items/remove" where !items.isEmpty:
            items.remove(at: index % items.count)
        case "user/rename":
            user["name"] = action["name"] ?? .null
        case "user/visit":
            user["visits"] = .number(JSONNumber((user["visits"]?.numberValue?.int64Value ?? 0) + 1))
        default:
            break
        }
        root["items"] = .array(items)
        root["user"] = .object(user)
        state = .object(root)
    }

    /// The reducer's state after `seq`, and the state the log records after it (the state of the
    /// last seq at or before it that was not coalesced).
    static func states(seed: UInt64, through seq: Int64) -> (actual: JSONValue, recorded: JSONValue) {
        var actual = initialState
        var recorded = initialState
        if seq > 0 {
            for s in 1...seq {
                reduce(&actual, action(seed: seed, seq: s))
                if !isCoalesced(seed: seed, seq: s) { recorded = actual }
            }
        }
        return (actual, recorded)
    }
}
