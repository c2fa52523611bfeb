extension JSONValue {
    /// JSON equality (exactly as `==`: keys and strings scalar by scalar) that first asks whether two containers share their buffers:
    /// two states where one was derived from the other by copy-on-write share every subtree
    /// that was not touched, so those compare in O(1).
    func isFastEqual(to other: JSONValue) -> Bool {
        switch self {
        case .object(let a):
            guard case .object(let b) = other else { return false }
            if a.sharesStorage(with: b) { return true }
            guard a.count == b.count else { return false }
            let aKeys = a.keys, bKeys = b.keys
            return a.withValueBuffer { av in
                b.withValueBuffer { bv in
                    for i in 0..<aKeys.count {
                        let j: Int
                        if aKeys[i].hasSameBytes(as: bKeys[i]) {
                            j = i
                        } else {
                            guard let found = b.index(forKey: aKeys[i]) else { return false }
                            j = found
                        }
                        if isBitwiseIdentical(av.baseAddress! + i, bv.baseAddress! + j) { continue }
                        if !av[i].isFastEqual(to: bv[j]) { return false }
                    }
                    return true
                }
            }
        case .array(let a):
            guard case .array(let b) = other else { return false }
            guard a.count == b.count else { return false }
            return a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    if pa.baseAddress == pb.baseAddress || pa.isEmpty { return true }
                    let aBase = pa.baseAddress!, bBase = pb.baseAddress!
                    for i in 0..<pa.count where !isBitwiseIdentical(aBase + i, bBase + i) {
                        if !pa[i].isFastEqual(to: pb[i]) { return false }
                    }
                    return true
                }
            }
        case .string(let a):
            // Scalar by scalar, as `==` compares JSON strings (it starts by comparing storage
            // identity); Swift's `==` would call canonically equivalent strings equal.
            guard case .string(let b) = other else { return false }
            return a.hasSameBytes(as: b)
        case .number(let a):
            guard case .number(let b) = other else { return false }
            return a == b
        case .bool(let a):
            guard case .bool(let b) = other else { return false }
            return a == b
        case .null:
            return other.isNull
        }
    }

    /// A hash consistent with JSON equality (equal values hash equal: objects regardless of
    /// key order, numbers by value), used to line up array elements before diffing them.
    /// Collisions only cost diff quality, never correctness: matched elements are diffed too.
    var structuralHash: Int {
        switch self {
        case .null: return 0x5bd1_e995
        case .bool(let b): return b ? 0x2f69_3b6d : 0x1b87_3593
        case .number(let n):
            let d = n.doubleValue
            // Equal numbers give the same correctly rounded Double; fold -0 into 0.
            return mixHash(0x27d4_eb2f, d == 0 ? 0 : Int(truncatingIfNeeded: d.bitPattern))
        case .string(let s):
            return mixHash(0x1656_67b1, s.hashValue)
        case .array(let elements):
            var h = 0x3c6e_f372 &+ elements.count
            for element in elements { h = mixHash(h, element.structuralHash) }
            return h
        case .object(let object):
            // Members combine commutatively, so key order does not matter.
            var sum = 0
            let keys = object.keys
            for i in 0..<keys.count {
                sum = sum &+ mixHash(keys[i].hashValue, object.value(at: i).structuralHash)
            }
            return mixHash(0x7f4a_7c15 &+ keys.count, sum)
        }
    }
}

/// Mixes two words into one (a multiply-xorshift step, as in common 64-bit hash finalizers).
@inline(__always)
func mixHash(_ a: Int, _ b: Int) -> Int {
    var x = UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: Int64(b))
    x = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
    x ^= x >> 29
    return Int(truncatingIfNeeded: x)
}
