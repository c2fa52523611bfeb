import RewindJSON
import Testing
import RewindTestSupport

/// The depth and growth limits, checked while a patch applies.
@Suite("JSON Patch limits", .ownThreads)
struct JSONPatchLimitsTests {
    /// `[[[…]]]` nested `levels` deep (0 is the scalar 1).
    static func nested(_ levels: Int) -> String {
        String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
    }

    func pointer(_ text: String) -> JSONPointer {
        do { return try JSONPointer(text) } catch { fatalError("\(text) is not a pointer") }
    }

    func copies(_ count: Int, from: String, to: String) -> JSONPatch {
        JSONPatch(Array(repeating: .copy(from: pointer(from), path: pointer(to)), count: count))
    }

    @Test("copying a value into itself is refused at the depth limit, and the document is unchanged")
    func nestingCopies() throws {
        let original = try JSONValue(parsing: #"{"a":{"x":1}}"#)
        var doc = original
        // Each copy of /a into /a/k nests one level deeper; depth 2 at the start.
        let error = try #require(throws: JSONPatchError.self) {
            try doc.apply(copies(50_000, from: "/a", to: "/a/k"), limits: JSONPatchLimits(maxDepth: 10))
        }
        #expect(error.index == 8)
        #expect(error.reason == .tooDeep(pointer("/a/k"), limit: 10))
        #expect(error.description == "operation 8 (copy /a → /a/k): the value at /a/k would nest the document deeper than the limit of 10 levels")
        #expect(doc == original)
    }

    @Test("the default limit is the parser's: a result at 1,000 levels applies and reads back, 1,001 does not")
    func defaultDepthIsTheParsers() throws {
        var doc = try JSONValue(parsing: "{\"a\":\(Self.nested(998))}")
        #expect(doc.measure().depth == 999)
        let deepest = try JSONValue(parsing: "[]")
        var atLimit = doc
        try atLimit.apply(JSONPatch([.add(path: pointer("/b"), value: try JSONValue(parsing: Self.nested(999)))]))
        #expect(atLimit.measure().depth == 1_000)
        #expect(try JSONValue(parsing: atLimit.serializedBytes()) == atLimit)
        let error = try #require(throws: JSONPatchError.self) {
            try doc.apply(JSONPatch([.add(path: pointer("/b"), value: try JSONValue(parsing: Self.nested(1_000)))]))
        }
        #expect(error.reason == .tooDeep(pointer("/b"), limit: 1_000))
        // A path deeper than the limit names no place the value could go.
        let path = JSONPointer(tokens: Array(repeating: "0", count: 1_000))
        #expect(throws: JSONPatchError.self) { try doc.apply(JSONPatch([.add(path: path, value: deepest)])) }
    }

    @Test("a move that goes deeper is checked; one that stays level is not walked")
    func moves() throws {
        var doc = try JSONValue(parsing: "{\"a\":\(Self.nested(5)),\"b\":{\"c\":{}}}")
        let before = doc
        let error = try #require(throws: JSONPatchError.self) {
            try doc.apply(JSONPatch([.move(from: pointer("/a"), path: pointer("/b/c/d"))]), limits: JSONPatchLimits(maxDepth: 7))
        }
        #expect(error.reason == .tooDeep(pointer("/b/c/d"), limit: 7))
        #expect(doc == before)
        try doc.apply(JSONPatch([.move(from: pointer("/a"), path: pointer("/e"))]), limits: JSONPatchLimits(maxDepth: 7))
        #expect(doc["e"] == before["a"])
    }

    @Test("a patch that doubles the document with each copy is refused after a few operations")
    func doublingCopies() throws {
        let original = try JSONValue(parsing: "{\"a\":[\"\(String(repeating: "x", count: 1_000))\"]}")
        var doc = original
        // 40 doublings would place 2^40 KB; the 1 MiB budget is gone after about ten.
        let error = try #require(throws: JSONPatchError.self) {
            _ = try doc.applyReturningInverse(copies(40, from: "/a", to: "/a/-"), limits: JSONPatchLimits(maxAddedBytes: 1 << 20))
        }
        #expect(error.reason == .tooLarge(limit: 1 << 20))
        #expect((8...12).contains(error.index ?? -1))
        #expect(doc == original)
    }

    @Test("add and replace values count against the byte budget, scalars included")
    func addedBytes() throws {
        var doc = try JSONValue(parsing: "{}")
        let limits = JSONPatchLimits(maxAddedBytes: 20)
        try doc.apply(JSONPatch([.add(path: pointer("/a"), value: "0123456789")]), limits: limits)  // 12 bytes
        let error = try #require(throws: JSONPatchError.self) {
            try doc.apply(JSONPatch([.add(path: pointer("/b"), value: "0123456789"),
                                     .replace(path: pointer("/a"), value: "0123456789")]), limits: limits)
        }
        #expect(error.index == 1)
        #expect(error.reason == .tooLarge(limit: 20))
        #expect(doc == ["a": "0123456789"])
    }

    @Test("measure estimates compact size and depth without recursion", arguments: [
        (#"null"#, 4, 0), (#"[]"#, 2, 1), (#"{}"#, 2, 1), (#"[1,2,3]"#, 7, 1),
        (#"{"a":[true,false],"bc":"xyz"}"#, 29, 2), (#"[[[-1.5e-3]]]"#, 13, 3), (#"12345678901234567890123"#, 23, 0),
    ])
    func measure(text: String, bytes: Int, depth: Int) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.measure().bytes == bytes)
        #expect(value.measure().bytes == value.serializedBytes().count)
        #expect(value.measure().depth == depth)
    }

    @Test("measure stops at its budgets")
    func measureStops() throws {
        let value = try JSONValue(parsing: "[\(Array(repeating: "\"abcdefgh\"", count: 100_000).joined(separator: ","))]")
        let (bytes, _) = value.measure(byteBudget: 100)
        // The brackets and commas alone pass the budget, so no element is visited.
        #expect(bytes > 100 && bytes < value.serializedBytes().count / 5)
        #expect(try JSONValue(parsing: Self.nested(900)).measure(depthBudget: 10).depth == 11)
    }
}

