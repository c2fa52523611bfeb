import RewindJSON
import RewindSupport

/// Pseudo-random JSON documents and mutations of them, for property tests.
enum RandomJSON {
    /// Keys chosen to exercise pointer escaping and array-looking tokens.
    static let keys = ["a", "b", "name", "value", "items", "id", "", "a/b", "m~n", "~1", "-", "0", "ünï", "tags", "x y"]
    static let strings = ["", "Ada", "Grace", "a/b", "~0", "quote\"d", "line\nbreak", "é", "e\u{301}", "🙂", "x"]

    /// A document of moderate size: nested objects and arrays, some arrays of records with `id`
    /// or `_id`, numbers in several spellings.
    static func document(_ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
        let roll = rng.int(0..<100)
        if depth < 4, roll < 35 {
            var object = JSONObject()
            for _ in 0..<rng.int(0..<7) { object[rng.pick(keys)] = document(&rng, depth: depth + 1) }
            return .object(object)
        }
        if depth < 4, roll < 60 {
            if rng.chance(0.3) { return recordList(&rng, depth: depth) }
            return .array((0..<rng.int(0..<8)).map { _ in document(&rng, depth: depth + 1) })
        }
        return scalar(&rng)
    }

    /// An object with a few members at the top, as application states are.
    static func state(_ rng: inout SplitMix64) -> JSONValue {
        var object = JSONObject()
        for _ in 0..<rng.int(3..<9) { object[rng.pick(keys)] = document(&rng, depth: 1) }
        return .object(object)
    }

    static func recordList(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        let idKey = rng.chance(0.7) ? "id" : "_id"
        let count = rng.int(0..<25)
        return .array((0..<count).map { k in record(&rng, idKey: idKey, id: k * 3, depth: depth + 1) })
    }

    static func record(_ rng: inout SplitMix64, idKey: String, id: Int, depth: Int) -> JSONValue {
        var object = JSONObject()
        object[idKey] = rng.chance(0.5) ? .number(JSONNumber(id)) : .string("item-\(id)")
        object["name"] = .string(rng.pick(strings))
        object["count"] = .number(JSONNumber(rng.int(0..<100)))
        if depth < 4, rng.chance(0.4) { object["tags"] = .array((0..<rng.int(0..<4)).map { _ in scalar(&rng) }) }
        return .object(object)
    }

    static func scalar(_ rng: inout SplitMix64) -> JSONValue {
        switch rng.int(0..<9) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2, 3: return .number(JSONNumber(rng.int(-5..<50)))
        case 4: return .number(JSONNumber(text: rng.pick(["1.5", "1.50", "-0", "1e3", "12345678901234567890", "2.5E-3"]))!)
        default: return .string(rng.pick(strings))
        }
    }

    /// `value` with changes at random places: scalars changed, type changes, members added and
    /// removed, elements inserted, removed, moved and replaced. `rate` is the chance that a given
    /// node changes.
    static func mutate(_ value: JSONValue, _ rng: inout SplitMix64, rate: Double, depth: Int = 0) -> JSONValue {
        switch value {
        case .object(var object):
            if rng.chance(rate) {
                switch rng.int(0..<4) {
                case 0 where !object.isEmpty: object.removeValue(forKey: object.keys[rng.int(0..<object.count)])
                case 1: object[rng.pick(keys) + String(rng.int(0..<3))] = document(&rng, depth: depth + 1)
                case 2: return scalar(&rng)
                default: break
                }
            }
            for key in object.keys {
                object[key] = mutate(object[key]!, &rng, rate: rate, depth: depth + 1)
            }
            return .object(object)
        case .array(var elements):
            if rng.chance(rate) {
                mutateArray(&elements, &rng, depth: depth)
            }
            for k in elements.indices where rng.chance(0.7) {
                elements[k] = mutate(elements[k], &rng, rate: rate, depth: depth + 1)
            }
            return .array(elements)
        default:
            guard rng.chance(rate) else { return value }
            return rng.chance(0.85) ? scalar(&rng) : document(&rng, depth: 3)
        }
    }

    private static func mutateArray(_ elements: inout [JSONValue], _ rng: inout SplitMix64, depth: Int) {
        let idKey: String? = elements.first.flatMap { first in
            ["id", "_id"].first { first[$0] != nil }
        }
        for _ in 0..<rng.int(1..<4) {
            switch rng.int(0..<5) {
            case 0:
                // Insert, with a fresh id when the list is a list of records.
                let element = idKey.map { record(&rng, idKey: $0, id: 1_000 + rng.int(0..<1_000_000), depth: depth + 1) }
                    ?? document(&rng, depth: depth + 1)
                elements.insert(element, at: rng.int(0..<(elements.count + 1)))
            case 1 where !elements.isEmpty:
                elements.remove(at: rng.int(0..<elements.count))
            case 2 where elements.count > 1:
                let moved = elements.remove(at: rng.int(0..<elements.count))
                elements.insert(moved, at: rng.int(0..<(elements.count + 1)))
            case 3 where !elements.isEmpty:
                elements[rng.int(0..<elements.count)] = document(&rng, depth: depth + 1)
            default:
                elements.append(scalar(&rng))
            }
        }
    }

    /// Changes about `fraction` of the scalars of a large document, and inserts and removes
    /// elements in about `fraction` of its arrays: the kind of edit a state goes through.
    static func perturb(_ value: JSONValue, _ rng: inout SplitMix64, fraction: Double) -> JSONValue {
        switch value {
        case .object(var object):
            for key in object.keys { object[key] = perturb(object[key]!, &rng, fraction: fraction) }
            return .object(object)
        case .array(var elements):
            for k in elements.indices { elements[k] = perturb(elements[k], &rng, fraction: fraction) }
            if !elements.isEmpty, rng.chance(fraction * 5) {
                if rng.chance(0.5) {
                    elements.remove(at: rng.int(0..<elements.count))
                } else {
                    let copy = elements[rng.int(0..<elements.count)]
                    elements.insert(copy, at: rng.int(0..<(elements.count + 1)))
                }
            }
            return .array(elements)
        default:
            guard rng.chance(fraction) else { return value }
            switch value {
            case .number(let n): return .number(JSONNumber((n.intValue ?? 0) + 1))
            case .string(let s): return .string(s + "!")
            case .bool(let b): return .bool(!b)
            default: return "was null"
            }
        }
    }
}
