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

    // MARK: escapesTerminalControls

    static let terminal = JSONWriteOptions(escapesTerminalControls: true)

    /// Every scalar the terminal-safe writer must escape, with how it writes it.
    static let terminalControls: [(Unicode.Scalar, String)] =
        (0x7F...0x9F).map { (Unicode.Scalar($0)!, "\\u00" + String($0, radix: 16)) }
        + [(0x061C, "\\u061c"), (0x200E, "\\u200e"), (0x200F, "\\u200f"), (0x202A, "\\u202a"), (0x202B, "\\u202b"),
           (0x202C, "\\u202c"), (0x202D, "\\u202d"), (0x202E, "\\u202e"), (0x2066, "\\u2066"), (0x2067, "\\u2067"),
           (0x2068, "\\u2068"), (0x2069, "\\u2069")].map { (Unicode.Scalar(UInt32($0.0))!, $0.1) }

    @Test("terminal-safe: DEL, every C1 control and every bidi formatting character become \\u escapes that parse back")
    func terminalControlsEscaped() throws {
        for (scalar, escape) in Self.terminalControls {
            let value = JSONValue.string("a" + String(Character(scalar)) + "b")
            let text = value.serialized(Self.terminal)
            #expect(text == "\"a\(escape)b\"", "U+\(String(scalar.value, radix: 16))")
            #expect(!text.unicodeScalars.contains(scalar))
            #expect(try JSONValue(parsing: text) == value)
            #expect(JSONWriteOptions.isTerminalControl(scalar))
            // The default keeps the character as it is.
            #expect(value.serialized() == "\"a" + String(Character(scalar)) + "b\"")
        }
    }

    @Test("terminal-safe: C0 controls, quotes and backslashes as by default; neighbours of the escaped ranges pass through")
    func terminalPassThrough() throws {
        for code in 0..<0x20 {
            let value = JSONValue.string(String(Character(Unicode.Scalar(UInt8(code)))))
            #expect(value.serialized(Self.terminal) == value.serialized(), "U+\(String(code, radix: 16))")
        }
        #expect(JSONValue.string(#"a"b\c/"#).serialized(Self.terminal) == #""a\"b\\c/""#)
        // Just outside the escaped ranges, and scalars of every UTF-8 length.
        let neighbours = "~\u{A0}\u{061B}\u{061D}\u{200D}\u{2010}\u{2029}\u{202F}\u{2065}\u{206A}é漢😀"
        #expect(JSONValue.string(neighbours).serialized(Self.terminal) == "\"" + neighbours + "\"")
        for scalar in neighbours.unicodeScalars { #expect(!JSONWriteOptions.isTerminalControl(scalar)) }
    }

    @Test("terminal-safe: keys too, pretty and sorted, and the value parses back unchanged")
    func terminalKeysAndLayouts() throws {
        let payload = "\u{1B}[2J\u{1B}]0;PWNED\u{07}\u{9B}31m\u{85}\u{202E}evil\u{7F}"
        let nested: JSONValue = [.string(payload), ["nested": .string(payload)]]
        let members: [(String, JSONValue)] = [("plain", "x"), (payload, nested)]
        let value = JSONValue.object(JSONObject(members))
        for options in [Self.terminal, JSONWriteOptions(pretty: true, escapesTerminalControls: true),
                        JSONWriteOptions(sortKeys: true, escapesTerminalControls: true)] {
            let bytes = value.serializedBytes(options)
            #expect(try JSONValue(parsing: bytes) == value)
            #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !bytes.contains(0x7F))
            #expect(!String(decoding: bytes, as: UTF8.self).unicodeScalars.contains { JSONWriteOptions.isTerminalControl($0) && $0 != "\n" })
            #expect(String(decoding: bytes, as: UTF8.self).contains(#"\u001b[2J\u001b]0;PWNED\u0007\u009b31m\u0085\u202eevil\u007f"#))
            #expect(value.serialized(options) == String(decoding: bytes, as: UTF8.self))
        }
        // Without the option the bytes are exactly the default's.
        #expect(value.serializedBytes(JSONWriteOptions(pretty: true)) == value.serializedBytes(JSONWriteOptions.pretty))
        #expect(value.serialized().unicodeScalars.contains("\u{202E}"))
    }

    @Test("terminal-safe escaping is right at every position of strings of every length")
    func terminalEscapingPositions() throws {
        for length in 0..<20 {
            for position in 0..<max(length, 1) {
                for special in ["\u{9B}", "\u{202E}", "\u{7F}", "\"", "\u{1}", "é", "😀"] {
                    var characters = Array(repeating: "x", count: length)
                    if length > 0 { characters[position] = special }
                    let s = characters.joined()
                    let text = JSONValue.string(s).serialized(Self.terminal)
                    #expect(try JSONValue(parsing: text) == .string(s))
                    #expect(!text.unicodeScalars.contains { JSONWriteOptions.isTerminalControl($0) })
                }
            }
        }
    }
}
