import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Every case of JSONTestSuite's `test_parsing`: `y_` must parse, `n_` must be rejected with a
/// ``JSONError``, `i_` may go either way but must never crash.
@Suite("JSONTestSuite conformance", .enabled(if: SharedTestData.isAvailable), .ownThreads)
struct JSONConformanceTests {
    static let directory = "JSONTestSuite/test_parsing"

    /// The file names in the suite that start with `prefix`, sorted; empty without shared data.
    static func cases(_ prefix: String) -> [String] {
        guard let url = SharedTestData.url(directory),
              let names = try? FileManager.default.contentsOfDirectory(atPath: url.path)
        else { return [] }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    @Test("the suite is there and complete")
    func suiteIsPresent() {
        #expect(Self.cases("y_").count >= 95)
        #expect(Self.cases("n_").count >= 188)
        #expect(Self.cases("i_").count >= 35)
    }

    @Test("accepts", arguments: cases("y_"))
    func accepts(name: String) throws {
        let bytes = try SharedTestData.bytes("\(Self.directory)/\(name)")
        #expect(throws: Never.self) { try JSONValue(parsing: bytes) }
    }

    @Test("rejects", arguments: cases("n_"))
    func rejects(name: String) throws {
        let bytes = try SharedTestData.bytes("\(Self.directory)/\(name)")
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: bytes) }
        if let error {
            #expect(error.line >= 1 && error.column >= 1)
            #expect(error.offset >= 0 && error.offset <= bytes.count)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("decides without crashing", arguments: cases("i_"))
    func decides(name: String) throws {
        let bytes = try SharedTestData.bytes("\(Self.directory)/\(name)")
        do {
            let value = try JSONValue(parsing: bytes)
            // Whatever is accepted must print to something that parses back to the same value.
            #expect(try JSONValue(parsing: value.serializedBytes()) == value)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }
}
