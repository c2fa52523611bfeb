import Foundation
import RewindJSON
import RewindSupport

/// `diff`: JSONDiff and JSONPatch on (a) citm_catalog.json against a copy with 1% of its values
/// changed and (b) a generated ~10 MB state with one field changed.
///
/// The baseline of each diff is the time to parse both documents, measured in the same run; the
/// goal is diff / parse ≤ 1.5. The two documents are parsed separately, so they share no buffers
/// and the diff must walk both; the "shared buffers" figure is the replay engine's case, where
/// the new state is a copy-on-write edit of the old one.
extension BenchGroup {
    static var diff: BenchGroup { BenchGroup(name: "diff", run: runDiffBenchmarks) }
}

func runDiffBenchmarks() throws -> [BenchResult] {
    var results: [BenchResult] = []
    let citm = try JSONValue(parsing: SharedTestData.bytes("json-corpus/citm_catalog.json"))
    var rng = SplitMix64(seed: 42)
    results += try DiffBenchCase(name: "citm 1%", a: citm, b: perturbValues(citm, &rng, fraction: 0.01)).run()
    let state = generatedState(targetBytes: 10_000_000)
    var changed = state
    try changed.apply(.replace(path: JSONPointer("/users/12345/settings/theme"), value: "dark-high-contrast"))
    results += try DiffBenchCase(name: "10MB state 1 field", a: state, b: changed).run()
    results += try runReplayBenchmarks()
    return results
}

/// One document pair: its texts, parsed separately for each measurement.
struct DiffBenchCase {
    var name: String
    var a: JSONValue
    /// `b` as a copy-on-write edit of `a` (shares every untouched subtree).
    var sharedB: JSONValue
    var aBytes: [UInt8]
    var bBytes: [UInt8]

    init(name: String, a: JSONValue, b: JSONValue) {
        self.name = name
        self.a = a
        self.sharedB = b
        aBytes = a.serializedBytes()
        bBytes = b.serializedBytes()
    }

    func run() throws -> [BenchResult] {
        let size = String(format: "%.1f MB", Double(aBytes.count) / 1e6)
        let parse = try Measure.median {
            blackHole(try JSONValue(parsing: aBytes))
            blackHole(try JSONValue(parsing: bBytes))
        } * 1e3
        let a = try JSONValue(parsing: aBytes)
        let b = try JSONValue(parsing: bBytes)
        var diff = JSONDiff(from: a, to: b)
        let diffTime = Measure.median { diff = JSONDiff(from: a, to: b) } * 1e3
        guard try diff.forward.apply(to: a) == b, try diff.inverse.apply(to: b) == a else {
            throw BenchFailure("\(name): the diff does not round-trip")
        }
        let ops = diff.forward.count
        let sharedTime = Measure.median { blackHole(JSONDiff(from: self.a, to: sharedB)) } * 1e3

        // Applying to a shared document copies the containers on each patched path.
        let applyCopy = try Measure.median { blackHole(try diff.forward.apply(to: a)) } * 1e3
        // Applying in place to a document this code owns alone: forward then inverse, halved.
        var owned = try JSONValue(parsing: aBytes)
        let applyInPlace = try Measure.median {
            try owned.apply(diff.forward)
            try owned.apply(diff.inverse)
        } * 1e3 / 2

        let what = "\(size), \(ops) ops"
        return [
            BenchResult(name: "diff \(name)", value: diffTime, unit: "ms", baseline: parse, ratio: diffTime / parse,
                        note: "\(what); baseline: parse both; goal ratio ≤ 1.5"),
            BenchResult(name: "diff \(name), shared buffers", value: sharedTime, unit: "ms", baseline: parse,
                        ratio: sharedTime / parse, note: "b is a copy-on-write edit of a"),
            BenchResult(name: "patch apply \(name), to a copy", value: applyCopy, unit: "ms",
                        note: "\(what); copies the containers on each path"),
            BenchResult(name: "patch apply \(name), in place", value: applyInPlace, unit: "ms",
                        note: "\(what); document owned alone"),
        ]
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `value` with about `fraction` of its scalars changed (numbers incremented, strings extended,
/// booleans flipped, nulls turned into strings), by applying `replace` operations to a
/// copy-on-write copy, so the result shares every untouched subtree with `value`.
func perturbValues(_ value: JSONValue, _ rng: inout SplitMix64, fraction: Double) throws -> JSONValue {
    var operations: [JSONPatchOperation] = []
    func visit(_ value: JSONValue, _ path: JSONPointer) {
        switch value {
        case .object(let object):
            for (key, member) in object { visit(member, path.appending(key)) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { visit(element, path.appending(index)) }
        default:
            guard rng.chance(fraction) else { return }
            let changed: JSONValue
            switch value {
            case .number(let n): changed = .number(JSONNumber((n.int64Value ?? 0) + 1))
            case .string(let s): changed = .string(s + "*")
            case .bool(let b): changed = .bool(!b)
            default: changed = "set"
            }
            operations.append(.replace(path: path, value: changed))
        }
    }
    visit(value, .root)
    return try JSONPatch(operations).apply(to: value)
}

/// An application state of about `targetBytes` of compact JSON: a session, a list of users with
/// ids and nested settings, a product catalog keyed by id and an activity log.
func generatedState(targetBytes: Int) -> JSONValue {
    var rng = SplitMix64(seed: 7)
    let themes: [JSONValue] = ["light", "dark", "system"]
    let roles: [JSONValue] = ["admin", "editor", "viewer", "billing"]
    func user(_ id: Int) -> JSONValue {
        .object([
            "id": .number(JSONNumber(id)),
            "name": .string("User \(id)"),
            "email": .string("user\(id)@example.com"),
            "roles": .array([roles[id % 4], roles[(id / 4) % 4]]),
            "settings": .object([
                "theme": themes[id % 3], "notifications": .bool(id % 2 == 0),
                "language": "en-GB", "pageSize": .number(JSONNumber(25 + id % 4 * 25)),
            ]),
            "stats": .object([
                "logins": .number(JSONNumber(Int(rng.next() % 1_000))),
                "score": .number(JSONNumber(Double(rng.next() % 100_000) / 100)!),
                "lastSeen": .string("2024-05-\(10 + id % 18)T12:\(10 + id % 50):00Z"),
            ]),
        ])
    }
    func product(_ id: Int) -> JSONValue {
        .object([
            "sku": .string("SKU-\(id)"), "title": .string("Product number \(id)"),
            "price": .number(JSONNumber(Double(rng.next() % 100_000) / 100)!),
            "tags": .array((0..<3).map { .string("tag\((id + $0) % 50)") }),
            "inStock": .bool(id % 5 != 0),
        ])
    }
    // Sizes are in proportion: users ≈ 60%, catalog ≈ 30%, log ≈ 10%.
    let userCount = targetBytes * 6 / 10 / 250
    let productCount = targetBytes * 3 / 10 / 118
    let logCount = targetBytes / 10 / 38
    var catalog = JSONObject()
    for id in 0..<productCount { catalog["p\(id)"] = product(id) }
    return .object([
        "session": ["user": 12345, "started": "2024-05-20T09:00:00Z", "route": ["home", "users", "12345"]],
        "users": .array((0..<userCount).map(user)),
        "catalog": .object(catalog),
        "log": .array((0..<logCount).map { k in
            .object(["seq": .number(JSONNumber(k)), "action": .string(k % 2 == 0 ? "select" : "load"), "ok": .bool(true)])
        }),
    ])
}
