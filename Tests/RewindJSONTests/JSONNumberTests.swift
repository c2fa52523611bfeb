import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Numbers keep their text and compare by value, whichever way they are stored inside.
@Suite("JSON numbers", .ownThreads)
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

    // Exponents beyond any machine integer: these used to trap on overflow while normalizing.
    static let hugeExponents = [
        "1e99999999999999999999", "1e9223372036854775807", "1e-9223372036854775808",
        "-1e9223372036854775808", "1E+18446744073709551616", "0.5e-99999999999999999999999999999",
        "123.456e99999999999999999999999999999999999999999999999999999999999999999999999999999999",
    ]

    @Test("huge exponents normalize, compare and hash without trapping", arguments: hugeExponents)
    func hugeExponentsDoNotTrap(text: String) throws {
        let n = try #require(JSONNumber(text: text))
        #expect(n.int64Value == nil)
        #expect(n.uint64Value == nil)
        #expect(n == n)
        #expect(n != JSONNumber(1))
        #expect(n.hashValue == JSONNumber(text: text)?.hashValue)
        let value = try JSONValue(parsing: "{\"a\":\(text)}")
        #expect(value.stableHash == value.stableHash)
        #expect(JSONDiff(from: value, to: try JSONValue(parsing: #"{"a":1}"#)).forward.count == 1)
    }

    @Test("huge exponents stay exact: equal values match, neighbours do not", arguments: [
        // Equal: the point and trailing zeros move the exponent across the 18-digit boundary.
        ("10e99999999999999999999", "1e100000000000000000000", true),
        ("0.1e1000000000000000000", "1e999999999999999999", true),
        ("100e-1000000000000000001", "1e-999999999999999999", true),
        ("1e9223372036854775807", "10e9223372036854775806", true),
        ("1e-9223372036854775808", "0.1e-9223372036854775807", true),
        ("1e099999999999999999999", "1e99999999999999999999", true),
        // Found by the fuzzer: the point moves an 18-digit exponent to 19 digits.
        ("0.5e-999999999999999999", "5e-1000000000000000000", true),
        ("10e999999999999999999", "1e1000000000000000000", true),
        // Unequal neighbours that a saturating exponent would have merged.
        ("1e99999999999999999999", "1e99999999999999999998", false),
        ("1e9223372036854775807", "1e9223372036854775808", false),
        ("1e-99999999999999999999", "1e99999999999999999999", false),
        ("-1e99999999999999999999", "1e99999999999999999999", false),
        ("2e99999999999999999999", "1e99999999999999999999", false),
    ])
    func hugeExponentsAreExact(a: String, b: String, equal: Bool) throws {
        let x = try #require(JSONNumber(text: a))
        let y = try #require(JSONNumber(text: b))
        #expect((x == y) == equal)
        #expect((x.canonicalText == y.canonicalText) == equal)
        if equal { #expect(x.hashValue == y.hashValue) }
    }

    @Test("canonical text of huge exponents", arguments: [
        ("10e99999999999999999999", "1e100000000000000000000"),
        ("1.50e-99999999999999999999", "15e-100000000000000000000"),
        ("0.1e1000000000000000000", "1e999999999999999999"),
        ("-1e9223372036854775808", "-1e9223372036854775808"),
    ])
    func hugeCanonicalText(text: String, canonical: String) throws {
        #expect(try #require(JSONNumber(text: text)).canonicalText == canonical)
    }

    @Test("integer accessors refuse huge values instead of trapping", arguments: [
        "1e19", "9223372036854775808", "-9223372036854775809", "1e99999999999999999999",
        "1e-99999999999999999999", "18446744073709551616", "1.5",
    ])
    func integerAccessorsRefuse(text: String) throws {
        let n = try #require(JSONNumber(text: text))
        #expect(n.int64Value == nil)
        #expect(n.intValue == nil)
    }
}
