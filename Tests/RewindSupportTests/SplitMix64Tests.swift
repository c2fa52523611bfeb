import RewindSupport
import Testing

@Suite struct SplitMix64Tests {
    /// The first outputs for seed 0 and seed 1234567 published with the reference C
    /// implementation (Vigna's splitmix64.c), so a fault script or a benchmark's data made from a
    /// seed is the same everywhere.
    @Test("matches the reference sequence") func matchesTheReferenceSequence() {
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
        #expect(zero.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(zero.next() == 0x06C4_5D18_8009_454F)
        var other = SplitMix64(seed: 1_234_567)
        #expect(other.next() == 6_457_827_717_110_365_317)
        #expect(other.next() == 3_203_168_211_198_807_973)
    }

    @Test("the same seed gives the same numbers") func theSameSeedGivesTheSameNumbers() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        var c = SplitMix64(seed: 43)
        let fromA = (0..<64).map { _ in a.next() }
        #expect(fromA == (0..<64).map { _ in b.next() })
        #expect(fromA != (0..<64).map { _ in c.next() })
    }

    @Test("drives the standard library's random APIs") func drivesTheStandardLibrarysRandomAPIs() {
        var random = SplitMix64(seed: 7)
        var seen = Set<Int>()
        for _ in 0..<1_000 { seen.insert(Int.random(in: 0..<10, using: &random)) }
        #expect(seen == Set(0..<10))
    }
}
