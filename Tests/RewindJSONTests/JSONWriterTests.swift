import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("JSON writer", .ownThreads)
struct JSONWriterTests {
    static let document: JSONValue = [
        "name": "Ada", "tags": ["a", 1, true, nil], "empty": [:], "none": [], "nested": ["z": 1.5, "a": [[:]]],
    ]

    @Test("compact has no whitespace and keeps key order")
    func compact() {
        #expect(Self.document.serialized() == #"{"name":"Ada","tags":["a",1,true,null],"empty":{},"none":[],"nested":{"z":1.5,"a":[{}]}}"#)
        #expect(Self.document.serialized(.compact) == Self.document.description)
        #expect(Self.document.serializedBytes() == Array(Self.document.serialized().utf8))
    }

    @Test("pretty indents with two spaces, one member per line, empty containers inline")
    func pretty() {
        let expected = """
        {
          "name": "Ada",
          "tags": [
            "a",
            1,
            true,
            null
          ],
          "empty": {},
          "none": [],
          "nested": {
            "z": 1.5,
            "a": [
              {}
            ]
          }
        }
        """
        #expect(Self.document.serialized(.pretty) == expected)
        #expect(JSONValue.number(7).serialized(.pretty) == "7")
    }

    @Test("canonical sorts keys by code point at every level")
    func canonical() {
        #expect(Self.document.serialized(.canonical) == #"{"empty":{},"name":"Ada","nested":{"a":[{}],"z":1.5},"none":[],"tags":["a",1,true,null]}"#)
        // Code point order, not UTF-16 order: U+FF61 sorts before U+1F600 although its UTF-16
        // unit (0xFF61) is above the surrogate 0xD83D.
        let keys: JSONValue = ["😀": 1, "｡": 2, "é": 3, "Z": 4, "a": 5, "aa": 6, "": 7]
        #expect(keys.serialized(.canonical) == #"{"":7,"Z":4,"a":5,"aa":6,"é":3,"｡":2,"😀":1}"#)
        #expect(keys.serialized(JSONWriteOptions(pretty: true, sortKeys: true)).hasPrefix("{\n  \"\": 7,\n  \"Z\": 4,"))
    }

    /// The escaping the writer must do, one scalar at a time.
    static func referenceEscaped(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    @Test("escapes quotes, backslashes and every control character", arguments: 0..<0x20)
    func controlCharacters(code: Int) {
        let character = String(UnicodeScalar(UInt8(code)))
        let expected: String = switch code {
        case 0x08: #""\b""#
        case 0x0C: #""\f""#
        case 0x0A: #""\n""#
        case 0x0D: #""\r""#
        case 0x09: #""\t""#
        default: "\"\\u00" + String(format: "%02x", code) + "\""
        }
        #expect(JSONValue.string(character).serialized() == expected)
    }

    @Test("quotes and backslashes are escaped; slash, DEL and non-ASCII pass through")
    func passThrough() {
        #expect(JSONValue.string(#"a"b\c"#).serialized() == #""a\"b\\c""#)
        #expect(JSONValue.string("/\u{7F}é漢😀").serialized() == "\"/\u{7F}é漢😀\"")
        #expect(JSONValue.string("").serialized() == #""""#)
    }

    @Test("escaping is right at every position around the 8-byte fast path")
    func escapingPositions() throws {
        for length in 0..<24 {
            for position in 0..<max(length, 1) {
                for special in ["\"", "\\", "\n", "\u{1}", "é", "😀"] {
                    var characters = Array(repeating: "x", count: length)
                    if length > 0 { characters[position] = special }
                    let s = characters.joined()
                    let text = JSONValue.string(s).serialized()
                    #expect(text == Self.referenceEscaped(s))
                    #expect(try JSONValue(parsing: text) == .string(s))
                }
            }
        }
    }

    @Test("numbers print back exactly as read", arguments: [
        "12345678901234567890", "1.10", "-0", "1E+2", "0", "-12", "1e400", "2.5E-3", "-9223372036854775808",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "0.0", "-0.0", "1e-0005",
        "1E05", "1.5e0003", "-65.613616999999977", "1.7976931348623157e308", "5e-324", "0.000001",
        "123456789012345678901234567890.123456789", "1e99999", "1e00001", "100", "1000000000000000000",
    ])
    func exactNumbers(text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.serialized() == text)
        #expect(value.serialized(.pretty) == text)
        #expect(try JSONValue(parsing: "[\(text)]").serialized() == "[\(text)]")
        #expect(JSONNumber(text: text)?.text == text)
    }

    @Test("numbers built from Swift values print as JSON")
    func swiftNumbers() {
        #expect(JSONValue.number(JSONNumber(42)).serialized() == "42")
        #expect(JSONValue.number(JSONNumber(Int64.min)).serialized() == "-9223372036854775808")
        #expect(JSONValue.number(JSONNumber(UInt64.max)).serialized() == "18446744073709551615")
        #expect(JSONValue.number(JSONNumber(0.1)!).serialized() == "0.1")
        #expect(JSONValue.number(JSONNumber(1e300)!).serialized() == "1e300")
        #expect(JSONValue.number(JSONNumber(-0.0)!).serialized() == "-0")
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONValue(floatLiteral: 2.5).serialized() == "2.5")
    }

    @Test("large outputs grow the buffer correctly")
    func largeOutput() throws {
        let big = JSONValue.array((0..<20_000).map { .string("item \($0) \"quoted\"") })
        let text = big.serialized()
        #expect(try JSONValue(parsing: text) == big)
        #expect(text.utf8.count > 20_000 * 15)
    }
}
