import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// parse → print → parse gives the same value, in every layout, on the conformance suite's valid
/// documents and on the three benchmark corpus files.
@Suite("JSON round trip", .enabled(if: SharedTestData.isAvailable), .ownThreads)
struct JSONRoundTripTests {
    static let corpus = ["canada", "citm_catalog", "twitter"]

    static func assertRoundTrips(_ bytes: [UInt8]) throws {
        let value = try JSONValue(parsing: bytes)
        for options in [JSONWriteOptions.compact, .pretty, .canonical, JSONWriteOptions(pretty: true, sortKeys: true)] {
            let printed = value.serializedBytes(options)
            let reparsed = try JSONValue(parsing: printed)
            #expect(reparsed == value, "layout \(options)")
            // Printing is a fixed point: the second print is byte for byte the first.
            #expect(reparsed.serializedBytes(options) == printed)
        }
        #expect(try JSONValue(parsing: value.serializedBytes()).stableHash == value.stableHash)
    }

    @Test("every y_ case round-trips", arguments: JSONConformanceTests.cases("y_"))
    func conformanceCase(name: String) throws {
        try Self.assertRoundTrips(try SharedTestData.bytes("\(JSONConformanceTests.directory)/\(name)"))
    }

    @Test("the corpus files round-trip", arguments: corpus)
    func corpusFile(name: String) throws {
        try Self.assertRoundTrips(try SharedTestData.bytes("json-corpus/\(name).json"))
    }

    @Test("every number in canada.json prints back as its exact text")
    func canadaNumbersExact() throws {
        let bytes = try SharedTestData.bytes("json-corpus/canada.json")
        let compact = try JSONValue(parsing: bytes).serialized()
        // The file's only whitespace-free rewrite keeps each number's spelling, so removing
        // whitespace from the original gives exactly the compact output.
        let stripped = String(decoding: bytes.filter { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }, as: UTF8.self)
        #expect(compact == stripped)
    }

    @Test("the corpus agrees with Foundation's JSONSerialization", arguments: corpus)
    func agreesWithFoundation(name: String) throws {
        let bytes = try SharedTestData.bytes("json-corpus/\(name).json")
        let ours = try JSONValue(parsing: bytes)
        let printed = Data(ours.serializedBytes())
        // Compared through Foundation's own sorted output, which is deterministic.
        func normalized(_ data: Data) throws -> Data {
            try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: data), options: [.sortedKeys])
        }
        #expect(try normalized(printed) == normalized(Data(bytes)))
    }
}
