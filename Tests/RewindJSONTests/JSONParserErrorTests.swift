import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Where and why the parser rejects input, and its limits.
@Suite("JSON parser errors", .ownThreads)
struct JSONParserErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { input.debugDescription }
    }

    @Test("errors say where (line, column in Unicode scalars) and what was expected", arguments: [
        Case(input: #"{"a":1,}"#, line: 1, column: 8, message: "expected a string key"),
        Case(input: "[1,2", line: 1, column: 5, message: "unexpected end of input: expected ',' or ']'"),
        Case(input: #"{"a" 1}"#, line: 1, column: 6, message: "expected ':' after an object key"),
        Case(input: #"{"a":1 "b":2}"#, line: 1, column: 8, message: "expected ',' or '}' after an object member"),
        Case(input: #"["é", x]"#, line: 1, column: 7, message: "expected a JSON value"),
        Case(input: #""😀\u12""#, line: 1, column: 7, message: "expected four hex digits after \\u"),
        Case(input: "{\n  \"a\": tru\n}", line: 2, column: 11, message: "expected a JSON value (did you mean 'true'?)"),
        Case(input: "[\r\n1,\r\n]", line: 3, column: 1, message: "expected a JSON value"),
        Case(input: "[1] x", line: 1, column: 5, message: "unexpected data after the JSON value"),
        Case(input: "01", line: 1, column: 2, message: "a number may not have leading zeros"),
        Case(input: "[1.]", line: 1, column: 4, message: "expected a digit after the decimal point"),
        Case(input: "-", line: 1, column: 2, message: "expected a digit in a number"),
        Case(input: "1e+", line: 1, column: 4, message: "expected a digit in the exponent"),
        Case(input: #""abc"#, line: 1, column: 5, message: "unexpected end of input inside a string"),
        Case(input: "[\"a\tb\"]", line: 1, column: 4, message: "control character U+0009 must be escaped in a string"),
        Case(input: #"["\x"]"#, line: 1, column: 3, message: "invalid escape '\\x' in a string"),
        Case(input: "", line: 1, column: 1, message: "expected a JSON value, found the end of the input"),
        Case(input: "  \n ", line: 2, column: 2, message: "expected a JSON value, found the end of the input"),
        Case(input: "nul", line: 1, column: 4, message: "expected a JSON value (did you mean 'null'?)"),
        Case(input: "[falsy]", line: 1, column: 6, message: "expected a JSON value (did you mean 'false'?)"),
        Case(input: "{'a':1}", line: 1, column: 2, message: "expected a string key"),
        Case(input: "[1,]", line: 1, column: 4, message: "expected a JSON value"),
        Case(input: "/* c */ 1", line: 1, column: 1, message: "expected a JSON value"),
    ])
    func position(_ c: Case) {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: c.input) }
        #expect(error?.line == c.line)
        #expect(error?.column == c.column)
        #expect(error?.message == c.message)
        #expect(error?.description == "line \(c.line), column \(c.column): \(c.message)")
    }

    @Test("the byte offset is the offending byte's")
    func offset() {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: #"["é", x]"#) }
        #expect(error?.offset == 7)
    }

    @Test("bytes, strings and Data give the same result")
    func inputKinds() throws {
        let text = #"{"a":[1,2.5,"é"],"b":null}"#
        let fromString = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: Array(text.utf8)) == fromString)
        #expect(try JSONValue(parsing: Data(text.utf8)) == fromString)
        let bad = "[1,}"
        let e1 = #expect(throws: JSONError.self) { try JSONValue(parsing: bad) }
        let e2 = #expect(throws: JSONError.self) { try JSONValue(parsing: Data(bad.utf8)) }
        #expect(e1 == e2)
    }

    @Test("a leading byte-order mark is skipped")
    func byteOrderMark() throws {
        #expect(try JSONValue(parsing: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
    }

    // MARK: Depth

    static func nested(_ depth: Int, closed: Bool = true) -> [UInt8] {
        Array(repeating: UInt8(ascii: "["), count: depth) + (closed ? Array(repeating: UInt8(ascii: "]"), count: depth) : [])
    }

    @Test("1,000 nested arrays parse")
    func depthAtLimit() throws {
        var value = try JSONValue(parsing: Self.nested(1_000))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            guard let first = elements.first else { break }
            value = first
        }
        #expect(depth == 1_000)
        let withObject = Array(repeating: UInt8(ascii: "["), count: 999) + Array("{}".utf8) + Array(repeating: UInt8(ascii: "]"), count: 999)
        #expect(throws: Never.self) { try JSONValue(parsing: withObject) }
    }

    @Test("1,001 nested arrays or objects are an error at the first one too deep")
    func depthBeyondLimit() {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: Self.nested(1_001)) }
        #expect(error?.message == "nesting is deeper than the limit of 1000")
        #expect(error?.column == 1_001)
        let objects = String(repeating: #"{"a":"#, count: 1_001) + "1" + String(repeating: "}", count: 1_001)
        #expect(throws: JSONError.self) { try JSONValue(parsing: objects) }
    }

    @Test("the depth limit is an option")
    func depthOption() throws {
        #expect(try JSONValue(parsing: Self.nested(3), options: JSONParseOptions(maxDepth: 3)) == [[[]]])
        #expect(throws: JSONError.self) { try JSONValue(parsing: Self.nested(4), options: JSONParseOptions(maxDepth: 3)) }
    }

    @Test("100,000 nested '[' fail cleanly, with or without a depth limit")
    func deepInputDoesNotOverflowTheStack() {
        let deep = Self.nested(100_000, closed: false)
        let limited = #expect(throws: JSONError.self) { try JSONValue(parsing: deep) }
        #expect(limited?.message == "nesting is deeper than the limit of 1000")
        // Without the limit the parser still uses no call stack per level.
        let unlimited = #expect(throws: JSONError.self) {
            try JSONValue(parsing: deep, options: JSONParseOptions(maxDepth: .max))
        }
        #expect(unlimited?.offset == 100_000)
        #expect(unlimited?.message == "unexpected end of input: expected a value")
    }

    // MARK: UTF-8 and escapes

    @Test("invalid UTF-8 is an error at the first bad byte", arguments: [
        ([0x22, 0xFF, 0x22], 1),                        // never valid
        ([0x22, 0x61, 0xC0, 0xAF, 0x22], 2),            // overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),            // UTF-8-encoded surrogate
        ([0x22, 0xE6, 0x97, 0x22], 1),                  // truncated sequence
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),      // beyond U+10FFFF
        ([0x22, 0x5C, 0x6E, 0x80, 0x22], 3),            // after an escape
        (Array("\"0123456789abcdef".utf8) + [0xFE, 0x22], 17), // past the 8-byte fast path
    ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: bytes) }
        #expect(error?.message == "invalid UTF-8 in a string")
        #expect(error?.offset == offset)
    }

    @Test("invalid UTF-8 outside strings is an error")
    func invalidUTF8OutsideStrings() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x5B, 0xFF, 0x5D]) }
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x31, 0xC3, 0xA9]) }
    }

    @Test("lone surrogate escapes are errors", arguments: [
        #""\uD800""#, #""\uDC00""#, #""\uD800\u0041""#, #""\uD800x""#, #""a\uDBFF\uDBFF""#, #""\uDFFF\uD800""#,
    ])
    func loneSurrogates(input: String) {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: input) }
        #expect(error?.message.hasPrefix("unpaired UTF-16 surrogate") == true)
    }

    @Test("escapes decode, surrogate pairs included")
    func escapes() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\u6F22\uD83D\uDE00""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\tAé漢😀"))
    }

    @Test("non-ASCII text and long strings read back exactly")
    func longStrings() throws {
        let text = String(repeating: "abcdéfgh漢字😀", count: 50)
        #expect(try JSONValue(parsing: "\"\(text)\"") == .string(text))
        let escaped = String(repeating: "a\\\"b", count: 40)
        #expect(try JSONValue(parsing: "\"\(escaped)\"") == .string(String(repeating: "a\"b", count: 40)))
    }

    // MARK: Duplicate keys

    @Test("a repeated key keeps its first place and its last value, in objects of every size", arguments: [2, 8, 9, 24, 25, 100])
    func duplicateKeys(size: Int) throws {
        let members = (0..<size).map { #""k\#($0)":\#($0)"# }
        let text = "{" + members.joined(separator: ",") + #","k0":"last","k\#(size - 1)":true}"#
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == size)
        #expect(object.keys == (0..<size).map { "k\($0)" })
        #expect(object["k0"] == "last")
        #expect(object["k\(size - 1)"] == true)
        if size > 2 { #expect(object["k1"] == 1) }
        #expect(object["missing"] == nil)
    }

    @Test("objects without repeated keys keep every member", arguments: [1, 8, 9, 24, 25, 1_000])
    func uniqueKeys(size: Int) throws {
        let text = "{" + (0..<size).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == size)
        for k in [0, size / 2, size - 1] { #expect(object["k\(k)"] == .number(JSONNumber(k))) }
    }
}
