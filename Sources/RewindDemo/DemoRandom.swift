import RewindSupport

/// A small seeded generator (SplitMix64): the demo's data, failures and scripted users come from
/// it, so a seed reproduces a run's choices on every machine.
///
/// ```swift
/// var random = DemoRandom(seed: 42)
/// let city = random.pick(["Austin", "Denver"])
/// ```
public struct DemoRandom: RandomNumberGenerator, Sendable, Equatable {
    private var generator: SplitMix64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// A generator for one use of a seed (`salt` names the use), independent of the others made
    /// from the same seed.
    public init(seed: UInt64, salt: String, _ index: Int = 0) {
        // FNV-1a over the salt: stable across runs, unlike `Hasher`.
        var mixed: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in salt.utf8 {
            mixed = (mixed ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        generator = SplitMix64(seed: seed ^ mixed ^ (UInt64(bitPattern: Int64(index)) &* 0x9e37_79b9_7f4a_7c15))
        _ = next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        generator.next()
    }

    /// `true` with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// One element of a non-empty collection.
    public mutating func pick<C: RandomAccessCollection>(_ elements: C) -> C.Element {
        elements[elements.index(elements.startIndex, offsetBy: Int.random(in: 0..<elements.count, using: &self))]
    }

    /// A number in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }
}
