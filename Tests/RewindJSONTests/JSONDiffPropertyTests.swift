import RewindJSON
import Testing
import RewindTestSupport
import RewindSupport

/// apply(diff(a, b).forward, a) == b and apply(diff(a, b).inverse, b) == a, over random
/// documents and random mutations of them. Each seed is one test case: a failure names it.
@Suite("JSONDiff properties", .ownThreads)
struct JSONDiffPropertyTests {
    /// Checks both directions; a failure prints the seed, and the documents and patches unless
    /// they are too large to read.
    static func check(_ a: JSONValue, _ b: JSONValue, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) {
        let diff = JSONDiff(from: a, to: b)
        func context(_ problem: String) -> Comment {
            var text = "\(problem) (seed \(seed))"
            let documents = "\na: \(a)\nb: \(b)\nforward: \(diff.forward)\ninverse: \(diff.inverse)"
            if documents.utf8.count < 20_000 { text += documents }
            return Comment(rawValue: text)
        }
        do {
            if try diff.forward.apply(to: a) != b {
                Issue.record(context("the forward patch gives another document"), sourceLocation: sourceLocation)
            }
            if try diff.inverse.apply(to: b) != a {
                Issue.record(context("the inverse patch gives another document"), sourceLocation: sourceLocation)
            }
            if try JSONPatch(json: diff.forward.json) != diff.forward {
                Issue.record(context("the forward patch does not survive its JSON form"), sourceLocation: sourceLocation)
            }
            #expect(diff.changes.count == diff.forward.count, sourceLocation: sourceLocation)
            if a == b, !diff.isEmpty { Issue.record(context("equal documents gave operations"), sourceLocation: sourceLocation) }
        } catch {
            Issue.record(context("\(error)"), sourceLocation: sourceLocation)
        }
    }

    @Test("mutated copies (sharing buffers) round-trip", arguments: 0..<300 as Range<UInt64>)
    func sharedBuffers(seed: UInt64) {
        var rng = SplitMix64(testCase: seed)
        let a = seed % 10 == 0 ? RandomJSON.document(&rng) : RandomJSON.state(&rng)
        let b = RandomJSON.mutate(a, &rng, rate: [0.1, 0.2, 0.5][Int(seed % 3)])
        Self.check(a, b, seed: seed)
    }

    @Test("mutated copies parsed afresh (no shared buffers) round-trip", arguments: 1_000..<1_300 as Range<UInt64>)
    func reparsed(seed: UInt64) throws {
        var rng = SplitMix64(testCase: seed)
        let a = RandomJSON.state(&rng)
        let b = try JSONValue(parsing: RandomJSON.mutate(a, &rng, rate: 0.2).serialized())
        Self.check(a, b, seed: seed)
    }

    @Test("unrelated documents round-trip", arguments: 2_000..<2_100 as Range<UInt64>)
    func unrelated(seed: UInt64) {
        var rng = SplitMix64(testCase: seed)
        Self.check(RandomJSON.document(&rng), RandomJSON.document(&rng), seed: seed)
    }

    @Test("long arrays with scattered inserts, removals and moves round-trip", arguments: 3_000..<3_040 as Range<UInt64>)
    func longArrays(seed: UInt64) {
        var rng = SplitMix64(testCase: seed)
        let records = seed % 2 == 0
        var elements: [JSONValue] = (0..<400).map { k in
            records ? RandomJSON.record(&rng, idKey: "id", id: k, depth: 1) : .number(JSONNumber(rng.int(0..<30)))
        }
        let a = JSONValue.array(elements)
        for _ in 0..<rng.int(1..<40) {
            switch rng.int(0..<4) {
            case 0: elements.insert(records ? RandomJSON.record(&rng, idKey: "id", id: 10_000 + rng.int(0..<10_000), depth: 1) : 99,
                                    at: rng.int(0..<(elements.count + 1)))
            case 1: elements.remove(at: rng.int(0..<elements.count))
            case 2: elements.insert(elements.remove(at: rng.int(0..<elements.count)), at: rng.int(0..<elements.count))
            default: let k = rng.int(0..<elements.count); elements[k] = RandomJSON.mutate(elements[k], &rng, rate: 0.5)
            }
        }
        Self.check(a, .array(elements), seed: seed)
    }
}

/// The three real documents of shared/testdata/json-corpus against copies of themselves with
/// about 1% of their values changed and elements inserted and removed.
@Suite("JSONDiff on the JSON corpus", .enabled(if: SharedTestData.isAvailable), .ownThreads)
struct JSONDiffCorpusTests {
    @Test("forward and inverse round-trip", arguments: ["canada.json", "citm_catalog.json", "twitter.json"])
    func corpus(file: String) throws {
        let a = try JSONValue(parsing: SharedTestData.bytes("json-corpus/\(file)"))
        for seed in 0..<3 as Range<UInt64> {
            var rng = SplitMix64(testCase: seed)
            let mutated = RandomJSON.perturb(a, &rng, fraction: 0.01)
            #expect(mutated != a)
            JSONDiffPropertyTests.check(a, mutated, seed: seed)
            JSONDiffPropertyTests.check(a, try JSONValue(parsing: mutated.serializedBytes()), seed: seed)
        }
        #expect(JSONDiff(from: a, to: try JSONValue(parsing: a.serializedBytes(.pretty))).isEmpty)
    }
}
