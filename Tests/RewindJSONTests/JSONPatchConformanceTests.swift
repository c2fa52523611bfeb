import RewindJSON
import Testing
import RewindTestSupport

/// One record of the json-patch-tests suite.
struct PatchConformanceCase: Sendable, CustomTestStringConvertible {
    var file: String
    var number: Int
    var record: JSONValue

    var testDescription: String {
        "\(file)#\(number): \(record["comment"]?.stringValue ?? record["error"]?.stringValue ?? "(no comment)")"
    }

    /// Every record with a doc and a patch that is not disabled, from both files.
    static let all: [PatchConformanceCase] = {
        var cases: [PatchConformanceCase] = []
        for file in ["tests.json", "spec_tests.json"] {
            guard let bytes = try? SharedTestData.bytes("json-patch-tests/\(file)"),
                  let records = try? JSONValue(parsing: bytes).arrayValue else { continue }
            for (number, record) in records.enumerated()
            where record["doc"] != nil && record["patch"] != nil && record["disabled"] != true {
                cases.append(PatchConformanceCase(file: file, number: number, record: record))
            }
        }
        return cases
    }()
}

@Suite("JSON Patch conformance (json-patch-tests)", .enabled(if: SharedTestData.isAvailable), .ownThreads)
struct JSONPatchConformanceTests {
    @Test("the suite is present and large")
    func loaded() {
        #expect(PatchConformanceCase.all.count > 100)
    }

    @Test("each case gives its expected document or fails leaving the document unchanged",
          arguments: PatchConformanceCase.all)
    func conformance(_ testCase: PatchConformanceCase) {
        let record = testCase.record
        let original = record["doc"]!
        var doc = original
        let result = Result { () throws(JSONPatchError) in
            try doc.apply(JSONPatch(json: record["patch"]!))
        }
        if let expected = record["expected"] {
            switch result {
            case .success: #expect(doc == expected)
            case .failure(let error): Issue.record("failed: \(error)")
            }
        } else if record["error"] != nil {
            if case .success = result { Issue.record("succeeded, expected: \(record["error"]!)") }
            #expect(doc == original)
        } else {
            // Neither: the patch must simply apply.
            if case .failure(let error) = result { Issue.record("failed: \(error)") }
        }
    }
}
