import RewindJSON
import Testing
import RewindTestSupport

/// Ordered members with lookups that stay right as objects grow past the index threshold.
@Suite("JSONObject", .ownThreads)
struct JSONObjectTests {
    @Test("lookups agree with a dictionary through inserts, updates and removals", arguments: [5, 24, 25, 40, 300])
    func mutations(size: Int) {
        var object = JSONObject()
        var reference: [String: Int] = [:]
        var order: [String] = []
        func check() {
            #expect(object.count == reference.count)
            #expect(object.keys == order)
            for (key, value) in reference { #expect(object[key] == .number(JSONNumber(value))) }
            #expect(object["absent"] == nil)
        }
        for k in 0..<size {
            object["key-\(k)"] = .number(JSONNumber(k))
            reference["key-\(k)"] = k
            order.append("key-\(k)")
        }
        check()
        // Updating keeps the position.
        object["key-0"] = 1_000
        reference["key-0"] = 1_000
        check()
        // Removing from the middle, the end and the start.
        for key in ["key-\(size / 2)", "key-\(size - 1)", "key-0"] {
            #expect(object.removeValue(forKey: key) != nil)
            reference[key] = nil
            order.removeAll { $0 == key }
            check()
        }
        #expect(object.removeValue(forKey: "key-0") == nil)
        // Inserting at the front and re-adding a removed key (which goes last).
        object.insert(7, forKey: "first", at: 0)
        reference["first"] = 7
        order.insert("first", at: 0)
        object["key-0"] = 3
        reference["key-0"] = 3
        order.append("key-0")
        check()
    }

    @Test("keys that share prefixes, lengths or bytes stay distinct")
    func similarKeys() {
        var object = JSONObject()
        let keys = ["", "a", "aa", "aaaaaaaa", "aaaaaaaaa", "aaaaaaaab", "baaaaaaaa", "é", "e\u{301}", "😀", "a\u{0}b", "a\u{0}c"]
            + (1..<40).map { String(repeating: "x", count: $0) }
        for (k, key) in keys.enumerated() { object[key] = .number(JSONNumber(k)) }
        #expect(object.count == keys.count)
        for (k, key) in keys.enumerated() { #expect(object[key] == .number(JSONNumber(k))) }
    }

    @Test("keys and strings compare scalar by scalar, not by canonical equivalence", arguments: [2, 10, 30])
    func canonicallyEquivalentKeys(size: Int) throws {
        // U+00E9 and e + U+0301 look alike and are equal Swift strings, but are different JSON.
        let filler = (0..<size - 2).map { #","f\#($0)":0"# }.joined()
        let text = #"{"\#u{E9}":1,"e\#u{301}":2"# + filler + "}"
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == size)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
        #expect(JSONValue.string("\u{E9}") != .string("e\u{301}"))
        #expect(JSONValue.string("\u{E9}").stableHash != JSONValue.string("e\u{301}").stableHash)
        #expect(JSONValue(dictionaryLiteral: ("\u{E9}", 1)) != JSONValue(dictionaryLiteral: ("e\u{301}", 1)))
    }

    @Test("equality ignores order; hashing agrees")
    func equality() {
        let a: JSONObject = ["x": 1, "y": [true], "z": nil]
        let b: JSONObject = ["z": nil, "x": 1.0, "y": [true]]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["x": 1, "y": [false], "z": nil])
        #expect(a != ["x": 1, "y": [true]])
    }

    @Test("a large parsed document reads every repeated string back exactly")
    func repeatedShortStrings() throws {
        // Long enough for the parser's string reuse; lengths around 8, 15 and 64 bytes, shared
        // prefixes, and strings that end right at the end of the input.
        var strings: [String] = []
        for round in 0..<12 {
            for length in 0...70 {
                strings.append(String(repeating: "k", count: length))
                strings.append(String(repeating: "k", count: max(0, length - 1)) + "\(round % 3)")
            }
        }
        strings.append("tail")
        let text = "[" + strings.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        #expect(text.utf8.count > 4_096)
        #expect(try JSONValue(parsing: text) == .array(strings.map { .string($0) }))
        let object = "{" + strings.enumerated().map { "\"\($0.element)#\($0.offset)\":\"\($0.element)\"" }.joined(separator: ",") + "}"
        let parsed = try #require(try JSONValue(parsing: object).objectValue)
        #expect(parsed.count == strings.count)
        for (k, s) in strings.enumerated() { #expect(parsed["\(s)#\(k)"] == .string(s)) }
    }
}
