/// A longest common subsequence of two sequences of element identities, by Myers' O(ND)
/// greedy algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986).
///
/// Returns the matched pairs `(i, j)` in increasing order, or `nil` when the edit distance is
/// larger than `maxEdits`: past that point the trace (O(D²) memory) and the time (O((N+M)·D))
/// are not worth it and the caller pairs elements by position instead.
func myersMatches(_ a: UnsafeBufferPointer<Int>, _ b: UnsafeBufferPointer<Int>, maxEdits: Int) -> [(Int, Int)]? {
    let n = a.count, m = b.count
    let limit = min(n + m, maxEdits)
    // v[offset + k] is the furthest x reached on diagonal k = x - y.
    let offset = limit + 1
    var v = [Int](repeating: 0, count: 2 * limit + 3)
    // trace[d] is v[-d...d] at the end of round d, kept for walking back.
    var trace: [[Int]] = []
    var found = -1
    search: for d in 0...limit {
        for k in stride(from: -d, through: d, by: 2) {
            var x: Int
            if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                x = v[offset + k + 1]           // down: insertion from b
            } else {
                x = v[offset + k - 1] + 1       // right: deletion from a
            }
            var y = x - k
            while x < n, y < m, a[x] == b[y] {
                x += 1
                y += 1
            }
            v[offset + k] = x
            if x >= n, y >= m {
                trace.append(Array(v[(offset - d)...(offset + d)]))
                found = d
                break search
            }
        }
        trace.append(Array(v[(offset - d)...(offset + d)]))
    }
    guard found >= 0 else { return nil }

    // Walk back from (n, m), collecting the diagonal (matching) steps.
    var matches: [(Int, Int)] = []
    var x = n, y = m
    for d in stride(from: found, to: 0, by: -1) {
        let previous = trace[d - 1]   // indices -(d-1)...(d-1), stored from 0
        let k = x - y
        func at(_ k: Int) -> Int { previous[k + d - 1] }
        let previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
        let previousX = at(previousK)
        let previousY = previousX - previousK
        // The snake after the edit step runs from the step's end to (x, y).
        let startX = previousK == k + 1 ? previousX : previousX + 1
        let startY = startX - k
        while x > startX, y > startY {
            x -= 1
            y -= 1
            matches.append((x, y))
        }
        x = previousX
        y = previousY
    }
    // Round 0 is the snake from (0, 0).
    while x > 0, y > 0 {
        x -= 1
        y -= 1
        matches.append((x, y))
    }
    matches.reverse()
    return matches
}
