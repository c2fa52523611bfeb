import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// State hash version 2 (`Docs/Protocol.md`, "Version 2: the tree hash"). What both versions
/// share (equal documents, distinct documents) is checked in `StableHashTests` for each version.
@Suite("Tree hash (state hash version 2)", .ownThreads)
struct TreeHashTests {
    @Test("strings of every length up to 100 bytes differ when any one byte does")
    func everyByteCounts() {
        for length in 1...100 {
            let base = String(repeating: "a", count: length)
            let hash = JSONValue.string(base).treeHash
            for position in [0, length / 2, length - 1] {
                var bytes = Array(base.utf8)
                bytes[position] = UInt8(ascii: "b")
                #expect(JSONValue.string(String(decoding: bytes, as: UTF8.self)).treeHash != hash, "length \(length), byte \(position)")
            }
            #expect(JSONValue.string(base + "\u{0}").treeHash != hash)
        }
    }

    @Test("fixed values, the same as Tests/python/test_protocol.py computes from the written rules")
    func fixedValues() throws {
        // The worked example of Docs/Protocol.md.
        let example = try JSONValue(parsing: #"{"ratio":1.50,"tags":[],"name":"Ann","count":100}"#)
        #expect(example.treeHash == 0x5CB0_4455_505F_96AC)
        #expect(JSONValue.null.treeHash == 0xD0EE_1190_68A4_2294)
        #expect(JSONValue.array([]).treeHash == 0xBEF9_FE01_B331_D501)
        #expect(JSONValue.object([:]).treeHash == 0x2B63_AA97_86DB_E73A)
        #expect(JSONValue.string("").treeHash == 0x32F7_91DF_9A77_74F0)
        #expect(JSONValue.string(String(repeating: "x", count: 100)).treeHash == 0x8CC8_CEC2_B932_D86C)
    }

    @Test("the canonical size it reports is the length of the canonical text, on the shared corpus and escapes")
    func canonicalSize() throws {
        var values: [JSONValue] = [
            .string("plain"), .string("quote \" backslash \\ newline \n tab \t bell \u{7} nul \u{0} é ✓"),
            .string(String(repeating: "ab\u{1}\"", count: 40)), [1.5, -0.0, 1e300, "x"], ["k\n": [:], "": []],
        ]
        if let folder = SharedTestData.url("json-corpus") {
            for name in ["canada", "citm_catalog", "twitter"] {
                let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
                values.append(try JSONValue(parsing: Array(data)))
            }
        }
        for value in values {
            #expect(value.hashAndCanonicalSize(.v2).size == value.hashAndCanonicalSize(.v1).size)
            #expect(value.hashAndCanonicalSize(.v2).hash == value.treeHash)
        }
    }

    @Test("a change to any one leaf of a large document changes its hash", .enabled(if: SharedTestData.isAvailable))
    func leafChanges() throws {
        let data = try SharedTestData.bytes("json-corpus/twitter.json")
        let document = try JSONValue(parsing: data)
        let original = document.treeHash
        var seen: Set<UInt64> = [original]
        var pointers: [JSONPointer] = []
        func collect(_ value: JSONValue, _ tokens: [String]) {
            switch value {
            case .array(let items): for (index, item) in items.enumerated() { collect(item, tokens + [String(index)]) }
            case .object(let object): for index in 0..<object.count { collect(object[index].value, tokens + [object[index].key]) }
            default: pointers.append(JSONPointer(tokens: tokens))
            }
        }
        collect(document, [])
        #expect(pointers.count > 1_000)
        // 300 leaves spread over the whole document (a debug build hashes it ~3 ms a time).
        let stride = max(1, pointers.count / 300)
        for pointer in Swift.stride(from: 0, to: pointers.count, by: stride).map({ pointers[$0] }) {
            var changed = document
            try changed.apply(JSONPatch([.replace(path: pointer, value: "changed")]))
            guard changed != document else { continue }
            #expect(seen.insert(changed.treeHash).inserted, "\(pointer)")
        }
    }
}
