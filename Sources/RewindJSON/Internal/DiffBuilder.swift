/// The diff engine behind ``JSONDiff``: walks two documents together and emits, in application
/// order, each forward operation with its inverse and the change a person would read.
struct DiffBuilder {
    /// One step of the current path. An array element has two positions: `new`, where it is
    /// when the operations so far have been applied (which is also its index in the target),
    /// and `old`, its index in the source document.
    enum Step {
        case key(String)
        case index(new: Int, old: Int)
    }

    /// How elements of an array are told apart when lining the two arrays up.
    enum Identity {
        /// By the whole value: an element that changed is a removal plus an insertion, which
        /// `pair` may turn back into a change in place.
        case value
        /// By the member with this name (`id`, `_id`): an element with the same key is the same
        /// item, whatever else changed in it.
        case member(String)
    }

    /// Past this many insertions plus deletions in one array, elements are paired by position.
    static let maxEdits = 1_000
    /// Past this many element comparisons (≈ (N+M)·D), likewise.
    static let maxWork = 20_000_000

    var path: [Step] = []
    var forward: [JSONPatchOperation] = []
    /// Inverse operations in forward order; reversed once at the end.
    var inverse: [JSONPatchOperation] = []
    var changes: [JSONChange] = []

    mutating func diff(_ a: JSONValue, _ b: JSONValue) {
        switch a {
        case .object(let x):
            guard case .object(let y) = b else { return replace(a, b) }
            if !x.sharesStorage(with: y) { diffObjects(x, y) }
        case .array(let x):
            guard case .array(let y) = b else { return replace(a, b) }
            diffArrays(x, y)
        case .string(let x):
            guard case .string(let y) = b else { return replace(a, b) }
            // Scalar by scalar, as JSON compares: Swift's `!=` would call "é" and "e\u{301}" equal.
            if !x.hasSameBytes(as: y) { replace(a, b) }
        case .number(let x):
            guard case .number(let y) = b else { return replace(a, b) }
            if x != y { replace(a, b) }
        case .bool(let x):
            guard case .bool(let y) = b else { return replace(a, b) }
            if x != y { replace(a, b) }
        case .null:
            if !b.isNull { replace(a, b) }
        }
    }

    // MARK: Objects

    private mutating func diffObjects(_ x: JSONObject, _ y: JSONObject) {
        let xKeys = x.keys, yKeys = y.keys
        var matched = 0
        x.withValueBuffer { xValues in
            y.withValueBuffer { yValues in
                for i in 0..<xKeys.count {
                    let key = xKeys[i]
                    // Objects that kept their key order line up position by position.
                    let j = (i < yKeys.count && yKeys[i].hasSameBytes(as: key)) ? i : y.index(forKey: key)
                    if let j {
                        matched += 1
                        // Untouched members of an edited copy are the very same bytes.
                        if isBitwiseIdentical(xValues.baseAddress! + i, yValues.baseAddress! + j) { continue }
                        path.append(.key(key))
                        diff(xValues[i], yValues[j])
                        path.removeLast()
                    } else {
                        path.append(.key(key))
                        remove(xValues[i])
                        path.removeLast()
                    }
                }
            }
        }
        guard matched < yKeys.count else { return }
        for j in 0..<yKeys.count where x.index(forKey: yKeys[j]) == nil {
            path.append(.key(yKeys[j]))
            add(y.value(at: j))
            path.removeLast()
        }
    }

    // MARK: Arrays

    private mutating func diffArrays(_ x: [JSONValue], _ y: [JSONValue]) {
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                if xs.baseAddress == ys.baseAddress, xs.count == ys.count { return }
                // An empty array may have no buffer at all.
                if xs.isEmpty, ys.isEmpty { return }
                if xs.isEmpty || ys.isEmpty { return diffAgainstEmpty(xs, ys) }
                diffArrays(xs, ys)
            }
        }
    }

    /// All elements removed (each in turn at index 0) or all added.
    private mutating func diffAgainstEmpty(_ x: UnsafeBufferPointer<JSONValue>, _ y: UnsafeBufferPointer<JSONValue>) {
        for i in x.indices {
            path.append(.index(new: 0, old: i))
            remove(x[i])
            path.removeLast()
        }
        for j in y.indices {
            path.append(.index(new: j, old: -1))
            add(y[j])
            path.removeLast()
        }
    }

    private mutating func diffArrays(_ x: UnsafeBufferPointer<JSONValue>, _ y: UnsafeBufferPointer<JSONValue>) {
        let n = x.count, m = y.count
        let xBase = x.baseAddress!, yBase = y.baseAddress!
        func same(_ i: Int, _ j: Int) -> Bool {
            isBitwiseIdentical(xBase + i, yBase + j) || x[i].isFastEqual(to: y[j])
        }
        var head = 0
        while head < n, head < m, same(head, head) { head += 1 }
        var tail = 0
        while tail < n - head, tail < m - head, same(n - 1 - tail, m - 1 - tail) { tail += 1 }
        let xRange = head..<(n - tail), yRange = head..<(m - tail)
        if xRange.isEmpty, yRange.isEmpty { return }

        let identity = Self.identity(of: x[xRange], y[yRange])
        var matches: [(Int, Int)] = []
        if !xRange.isEmpty, !yRange.isEmpty, xRange.count + yRange.count > 2 {
            let budget = min(Self.maxEdits, Self.maxWork / (xRange.count + yRange.count))
            let xIDs = Self.identities(x[xRange], identity)
            let yIDs = Self.identities(y[yRange], identity)
            let found = xIDs.withUnsafeBufferPointer { xi in
                yIDs.withUnsafeBufferPointer { yi in myersMatches(xi, yi, maxEdits: budget) }
            }
            // Too different to line up: every element pairs with the one at its position.
            matches = (found ?? []).map { ($0.0 + head, $0.1 + head) }
        }
        // Walk the gaps between matched elements; `k` is where the next element of `y` goes.
        var k = head, i = xRange.lowerBound, j = yRange.lowerBound
        for (mi, mj) in matches + [(xRange.upperBound, yRange.upperBound)] {
            let deleted = mi - i, inserted = mj - j
            let paired = min(deleted, inserted)
            for t in 0..<paired {
                path.append(.index(new: k, old: i + t))
                change(x[i + t], y[j + t], identity)
                path.removeLast()
                k += 1
            }
            for t in paired..<max(paired, deleted) {
                path.append(.index(new: k, old: i + t))
                remove(x[i + t])
                path.removeLast()
            }
            for t in paired..<max(paired, inserted) {
                path.append(.index(new: k, old: -1))
                add(y[j + t])
                path.removeLast()
                k += 1
            }
            if mi < xRange.upperBound {
                path.append(.index(new: k, old: mi))
                diff(x[mi], y[mj])
                path.removeLast()
                k += 1
            }
            i = mi + 1
            j = mj + 1
        }
    }

    /// An element of `x` that became an element of `y` at the same place: diffed inside when
    /// they look like the same thing changed, replaced whole otherwise.
    private mutating func change(_ a: JSONValue, _ b: JSONValue, _ identity: Identity) {
        switch (a, b, identity) {
        case (.array, .array, .value):
            diff(a, b)
        case (.object(let x), .object(let y), .value) where Self.sharesMostKeys(x, y):
            diff(a, b)
        case (.object(let x), .object(let y), .member(let key)) where x[key] == y[key]:
            diff(a, b)
        default:
            replace(a, b)
        }
    }

    /// `true` when at least half the keys of the smaller object are in the other: an object
    /// edited in place rather than a different kind of record.
    private static func sharesMostKeys(_ x: JSONObject, _ y: JSONObject) -> Bool {
        let (small, large) = x.count <= y.count ? (x, y) : (y, x)
        if small.isEmpty { return true }
        var shared = 0
        for key in small.keys where large.index(forKey: key) != nil { shared += 1 }
        return shared * 2 >= small.count
    }

    /// `member("id")` when every element on both sides is an object with an `id` member,
    /// `member("_id")` likewise, else `value`.
    private static func identity(of x: UnsafeBufferPointer<JSONValue>.SubSequence, _ y: UnsafeBufferPointer<JSONValue>.SubSequence) -> Identity {
        guard !x.isEmpty || !y.isEmpty else { return .value }
        for key in ["id", "_id"] {
            func hasKey(_ value: JSONValue) -> Bool {
                if case .object(let object) = value { return object.index(forKey: key) != nil }
                return false
            }
            if x.allSatisfy(hasKey), y.allSatisfy(hasKey) { return .member(key) }
        }
        return .value
    }

    private static func identities(_ elements: UnsafeBufferPointer<JSONValue>.SubSequence, _ identity: Identity) -> [Int] {
        switch identity {
        case .value:
            return elements.map(\.structuralHash)
        case .member(let key):
            return elements.map { $0[key]?.structuralHash ?? 0 }
        }
    }

    // MARK: Emitting

    private var currentPointer: JSONPointer {
        JSONPointer(tokens: path.map { step in
            switch step {
            case .key(let key): key
            case .index(let new, _): String(new)
            }
        })
    }

    /// Where the value was in the source document.
    private var oldPointer: JSONPointer {
        JSONPointer(tokens: path.map { step in
            switch step {
            case .key(let key): key
            case .index(_, let old): String(old)
            }
        })
    }

    private mutating func replace(_ a: JSONValue, _ b: JSONValue) {
        let pointer = currentPointer
        forward.append(.replace(path: pointer, value: b))
        inverse.append(.replace(path: pointer, value: a))
        changes.append(JSONChange(kind: .changed, path: pointer, oldValue: a, newValue: b))
    }

    private mutating func add(_ b: JSONValue) {
        let pointer = currentPointer
        forward.append(.add(path: pointer, value: b))
        inverse.append(.remove(path: pointer))
        changes.append(JSONChange(kind: .added, path: pointer, oldValue: nil, newValue: b))
    }

    private mutating func remove(_ a: JSONValue) {
        let pointer = currentPointer
        forward.append(.remove(path: pointer))
        inverse.append(.add(path: pointer, value: a))
        changes.append(JSONChange(kind: .removed, path: oldPointer, oldValue: a, newValue: nil))
    }
}
