/// Bounds on what applying a JSON Patch may build, checked operation by operation while the patch
/// applies, so that a small patch cannot build a document too deep to print or too large to hold.
///
/// ```swift
/// var state = try JSONValue(parsing: #"{"a":[1,2,3]}"#)
/// try state.apply(patch, limits: JSONPatchLimits(maxDepth: 998, maxAddedBytes: 64 << 20))
/// ```
public struct JSONPatchLimits: Sendable, Equatable {
    /// The deepest nesting of arrays and objects the document may reach. The default is the
    /// parser's limit, so that every document a patch builds can be printed and read back.
    public var maxDepth: Int
    /// The most bytes the patch's `add`, `replace`, `copy` and deeper-going `move` operations may
    /// place, counted as compact JSON (a close estimate: escapes are not counted); `nil` for no
    /// bound. Copies share storage, so this is what bounds a patch that doubles the document
    /// with each `copy`: it is refused after a few operations, before anything large exists.
    public var maxAddedBytes: Int?

    /// Limits with `maxDepth` (the parser's default limit unless given) and `maxAddedBytes`.
    public init(maxDepth: Int = JSONParseOptions().maxDepth, maxAddedBytes: Int? = nil) {
        self.maxDepth = maxDepth
        self.maxAddedBytes = maxAddedBytes
    }
}

extension JSONValue {
    /// The nesting depth of the value (0 for a scalar, 1 for `[]` or `{"a":1}`) and an estimate
    /// of its compact JSON size in bytes. The walk uses no recursion and stops as soon as the
    /// size passes `byteBudget` or the depth passes `depthBudget`, so its cost is bounded by the
    /// budgets, not by the value; the figures it returns then exceed the budget they passed.
    package func measure(byteBudget: Int = .max, depthBudget: Int = .max) -> (bytes: Int, depth: Int) {
        var bytes = 0
        var deepest = 0
        // Containers still to visit, with their own depth.
        var pending: [(value: JSONValue, depth: Int)] = []
        func visit(_ value: JSONValue, depth: Int) -> Bool {
            switch value {
            case .null: bytes &+= 4
            case .bool(let b): bytes &+= b ? 4 : 5
            case .number(let n): bytes &+= n.estimatedTextLength
            case .string(let s): bytes &+= s.utf8.count &+ 2
            case .array, .object:
                deepest = max(deepest, depth)
                pending.append((value, depth))
            }
            return bytes <= byteBudget && deepest <= depthBudget
        }
        guard visit(self, depth: 1) else { return (bytes, deepest) }
        while let (container, depth) = pending.popLast() {
            switch container {
            case .array(let elements):
                // Brackets and commas first: a huge array stops here before anything is pushed.
                bytes &+= 1 &+ max(elements.count, 1)
                guard bytes <= byteBudget else { return (bytes, deepest) }
                for element in elements where !visit(element, depth: depth &+ 1) { return (bytes, deepest) }
            case .object(let object):
                bytes &+= 1 &+ max(object.count, 1)
                guard bytes <= byteBudget else { return (bytes, deepest) }
                for (key, value) in object {
                    bytes &+= key.utf8.count &+ 3
                    if !visit(value, depth: depth &+ 1) { return (bytes, deepest) }
                }
            default:
                break
            }
        }
        return (bytes, deepest)
    }
}

extension JSONNumber {
    /// The length of the number's text, without building it.
    var estimatedTextLength: Int {
        switch storage {
        case .int(let i):
            var length = i < 0 ? 2 : 1
            var rest = i.magnitude / 10
            while rest > 0 { length += 1; rest /= 10 }
            return length
        case .packed(let p):
            return (p.isNegative ? 1 : 0) + Int(p.digitCount) + (p.fractionCount > 0 ? 1 : 0)
                + (p.exponentDigits > 0 ? Int(p.exponentDigits) + 2 : 0)
        case .text(let t):
            return t.utf8.count
        }
    }
}

/// The budget one application of a patch draws on.
struct PatchBudget {
    let limits: JSONPatchLimits
    /// Bytes still allowed to be placed; `.max` when unbounded.
    var remainingBytes: Int

    init(_ limits: JSONPatchLimits) {
        self.limits = limits
        remainingBytes = limits.maxAddedBytes ?? .max
    }

    /// Charges placing `value` at `tokens`: throws when it would nest past the depth limit or
    /// place more bytes than remain.
    mutating func place(_ value: JSONValue, at tokens: [String]) throws(PatchFailure) {
        let depthBudget = limits.maxDepth - tokens.count
        switch value {
        case .array, .object:
            guard depthBudget >= 1 else { throw PatchFailure(.tooDeep(JSONPointer(tokens: tokens), limit: limits.maxDepth)) }
            let (bytes, depth) = value.measure(byteBudget: remainingBytes, depthBudget: depthBudget)
            if depth > depthBudget { throw PatchFailure(.tooDeep(JSONPointer(tokens: tokens), limit: limits.maxDepth)) }
            try charge(bytes)
        default:
            guard depthBudget >= 0 else { throw PatchFailure(.tooDeep(JSONPointer(tokens: tokens), limit: limits.maxDepth)) }
            if remainingBytes != .max { try charge(value.measure().bytes) }
        }
    }

    private mutating func charge(_ bytes: Int) throws(PatchFailure) {
        guard remainingBytes != .max else { return }
        guard bytes <= remainingBytes else {
            throw PatchFailure(.tooLarge(limit: limits.maxAddedBytes ?? 0))
        }
        remainingBytes -= bytes
    }
}
