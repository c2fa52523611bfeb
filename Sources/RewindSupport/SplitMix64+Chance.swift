extension SplitMix64 {
    /// `true` with probability `probability`: a uniform draw from `0..<1` falls below it.
    @inlinable
    package mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
