import Foundation
import RewindJSON
import Testing

/// Numbers keep their text and compare by value, whichever way they are stored inside.
@Suite("JSON numbers")
struct JSONNumberTests {
    @Test("equal values compare equal across spellings", arguments: [
        ["1", "1.0", "1e0", "10e-1", "0.1e1", "1.000000000000000000000000", "100000000000000000000e-20"],
        ["100", "1e2", "1E+2", "1.00e2", "10000e-2"],
        ["0", "-0", "0.0", "-0.0", "0e10", "0.000000000000000000000000"],
        ["-9223372036854775808", "-9.223372036854775808e18"],
        ["12345678901234567890", "1234567890123456789e1", "1.2345678901234567890e19"],
        ["0.5", "5e-1", "50E-2", "0.50000"],
    ])
    func equalSpellings(spellings: [String]) throws {
        let numbers = try spellings.map { try #require(JSONNumber(text: $0)) }
        for a in numbers {
            for b in numbers {
                #expect(a == b, "\(a) == \(b)")
                #expect(a.hashValue == b.hashValue)
                #expect(a.canonicalText == b.canonicalText)
            }
        }
    }

    @Test("different values compare unequal", arguments: [
        ("1", "2"), ("1", "-1"), ("0.1", "0.01"), ("12345678901234567890", "12345678901234567891"),
        ("9223372036854775807", "9223372036854775808"), ("1e400", "1e401"), ("1.5", "15"),
    ])
    func differentValues(a: String, b: String) throws {
        #expect(try #require(JSONNumber(text: a)) != #require(JSONNumber(text: b)))
    }

    @Test("canonical text", arguments: [
        ("1.0", "1"), ("100", "1e2"), ("1.50", "15e-1"), ("-0.0", "0"), ("1.5e300", "15e299"), ("-120", "-12e1"),
        ("12345678901234567890", "1234567890123456789e1"), ("0.001", "1e-3"),
    ])
    func canonicalText(text: String, canonical: String) throws {
        #expect(try #require(JSONNumber(text: text)).canonicalText == canonical)
    }

    @Test("doubleValue is the nearest Double", arguments: [
        "-65.613616999999977", "0.1", "1e22", "1e23", "123456789012345678", "9007199254740993", "5e-324",
        "1.7976931348623157e308", "2.2250738585072014e-308", "-0", "0.000001", "1E-7", "3.14159",
    ])
    func doubles(text: String) throws {
        let number = try #require(JSONNumber(text: text))
        let expected = try #require(Double(text))
        #expect(number.doubleValue == expected)
        #expect(number.doubleValue.sign == expected.sign)
    }

    @Test("integer accessors")
    func integers() throws {
        func n(_ text: String) throws -> JSONNumber { try #require(JSONNumber(text: text)) }
        #expect(try n("2.0").int64Value == 2)
        #expect(try n("2e0").int64Value == 2)
        #expect(try n("1e18").int64Value == 1_000_000_000_000_000_000)
        #expect(try n("-9223372036854775808").int64Value == .min)
        #expect(try n("9223372036854775808").int64Value == nil)
        #expect(try n("1.5").int64Value == nil)
        #expect(try n("1e19").int64Value == nil)
        #expect(try n("18446744073709551615").uint64Value == .max)
        #expect(try n("-0").intValue == 0)
    }

    @Test("text that is not one JSON number is refused", arguments: [
        "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 ", " 1", "NaN", "Infinity", "1.5.5", "--1",
    ])
    func invalidText(text: String) {
        #expect(JSONNumber(text: text) == nil)
    }
}
