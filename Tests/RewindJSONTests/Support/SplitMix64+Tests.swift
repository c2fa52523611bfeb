import RewindSupport

extension SplitMix64 {
    /// The generator of test case `seed`. It starts one step past `SplitMix64(seed:)`, as the
    /// tests' own generator did before there was one SplitMix64, so a seed that a failure printed
    /// still makes the same documents.
    init(testCase seed: UInt64) {
        self.init(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
    }

    /// A number in `range`.
    mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// One of `choices`, which must not be empty.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[int(0..<choices.count)]
    }
}
