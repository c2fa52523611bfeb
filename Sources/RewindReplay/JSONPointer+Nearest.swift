import RewindJSON

extension JSONPointer {
    /// The existing path in `document` nearest to `path`, which names nothing there: `path`'s
    /// tokens followed as far as they exist, a missing key replaced by the member whose name is
    /// closest to it (edit distance, case ignored, within a third of its length and at least 2;
    /// a name of 3 characters or more may also be the start of the member's, with letters
    /// dropped: `totl` finds `totalCents`), and an index past an array's end by its last element. Stops at the deepest existing
    /// ancestor when nothing is close; `nil` when not even the first token comes near anything.
    ///
    /// ```swift
    /// JSONPointer.nearest(to: try JSONPointer("/cart/totl"), in: ["cart": ["total": 5]])   // /cart/total
    /// ```
    public static func nearest(to path: JSONPointer, in document: JSONValue) -> JSONPointer? {
        var current = document
        var found: [String] = []
        for token in path.tokens {
            switch current {
            case .object(let object):
                if let value = object[token] {
                    found.append(token)
                    current = value
                    continue
                }
                guard let key = closestKey(to: token, among: object.keys.prefix(10_000)), let value = object[key] else {
                    return found.isEmpty ? nil : JSONPointer(tokens: found)
                }
                found.append(key)
                current = value
            case .array(let items):
                guard !items.isEmpty else { return found.isEmpty ? nil : JSONPointer(tokens: found) }
                let index = JSONPointer.arrayIndex(token).map { min($0, items.count - 1) }
                guard let index else { return found.isEmpty ? nil : JSONPointer(tokens: found) }
                found.append(String(index))
                current = items[index]
            default:
                return found.isEmpty ? nil : JSONPointer(tokens: found)
            }
        }
        return found.isEmpty ? nil : JSONPointer(tokens: found)
    }

    /// The key of `keys` closest to `token` by edit distance (case ignored), if close enough: to
    /// the whole key, or (for a token of 3 characters or more, typed short) to its start. At the
    /// same distance a whole key wins over a start.
    static func closestKey<Keys: Sequence<String>>(to token: String, among keys: Keys) -> String? {
        let wanted = Array(token.lowercased().unicodeScalars)
        let bound = max(2, wanted.count / 3)
        var best: (key: String, score: Int)?
        for key in keys {
            let candidate = Array(key.lowercased().unicodeScalars)
            var score = Int.max
            if abs(candidate.count - wanted.count) <= bound {
                let distance = editDistance(wanted, candidate, bound: bound)
                if distance <= bound { score = distance * 2 }
            }
            if wanted.count >= 3, candidate.count > wanted.count {
                let distance = prefixDistance(wanted, candidate, bound: bound)
                if distance <= bound { score = min(score, distance * 2 + 1) }
            }
            if score < (best?.score ?? .max) { best = (key, score) }
        }
        return best?.key
    }

    /// The edit distance of `a` to the closest start of `b` (any length); past `bound` is
    /// reported as `bound + 1`.
    static func prefixDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], bound: Int) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return min(a.count, bound + 1) }
        // Any start of `b`: the best of the last row.
        return lastRow(a, b, bound: bound).map { min($0.min() ?? bound + 1, bound + 1) } ?? bound + 1
    }

    /// Levenshtein distance of `a` and `b`; anything past `bound` is reported as `bound + 1`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], bound: Int) -> Int {
        if a.isEmpty || b.isEmpty { return min(max(a.count, b.count), bound + 1) }
        return lastRow(a, b, bound: bound).map { min($0[b.count], bound + 1) } ?? bound + 1
    }

    /// The last row of the edit-distance table of `a` (rows) against `b` (columns): entry `j`
    /// is the distance of `a` to `b`'s first `j` scalars. `nil` once a whole row passes `bound`.
    private static func lastRow(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], bound: Int) -> [Int]? {
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            var smallest = row[0]
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                smallest = min(smallest, row[j])
            }
            if smallest > bound { return nil }
            swap(&previous, &row)
        }
        return previous
    }
}
