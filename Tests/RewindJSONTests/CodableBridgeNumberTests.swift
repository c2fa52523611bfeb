import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("Codable bridge: numbers", .ownThreads)
struct CodableBridgeNumberTests {
    @Test("integers are exact at every width's extremes")
    func integerExtremes() throws {
        try expectRoundTrip(
            Extremes(),
            #"{"i8":-128,"u8":255,"i16":-32768,"u16":65535,"i32":-2147483648,"u32":4294967295,"#
                + #""i64":-9223372036854775808,"u64":18446744073709551615,"#
                + #""int":9223372036854775807,"uint":18446744073709551615}"#
        )
        try expectRoundTrip(UInt64.max, "18446744073709551615")
        try expectRoundTrip(Int64.min, "-9223372036854775808")
        try expectRoundTrip([UInt64.max - 1, 1 << 63], "[18446744073709551614,9223372036854775808]")
    }

    @Test("128-bit integers are exact")
    func wideIntegers() throws {
        guard #available(macOS 15, *) else { return }
        try expectRoundTrip(Int128.min, "-170141183460469231731687303715884105728")
        try expectRoundTrip(UInt128.max, "340282366920938463463374607431768211455")
        try expectRoundTrip([Int128(-5)], "[-5]")
        #expect(try JSONValueDecoder().decode(UInt128.self, from: JSONValue(parsing: "1e30")) == 1_000_000_000_000_000_000_000_000_000_000)
    }

    @Test("integers decode from any integral spelling", arguments: ["3", "3.0", "3e0", "0.3e1", "300e-2"])
    func integralSpellings(text: String) throws {
        #expect(try JSONValueDecoder().decode(Int8.self, from: JSONValue(parsing: text)) == 3)
        #expect(try JSONValueDecoder().decode(UInt64.self, from: JSONValue(parsing: text)) == 3)
    }

    @Test("an integer type rejects a fraction or an out-of-range number at its path", arguments: [
        (#"{"count":256}"#, "does not fit in UInt8"),
        (#"{"count":-1}"#, "does not fit in UInt8"),
        (#"{"count":1.5}"#, "is not an integer"),
        (#"{"count":1e400}"#, "does not fit in UInt8"),
    ])
    func integerOutOfRange(text: String, message: String) throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Counter.self, from: JSONValue(parsing: text))
        }
        #expect(error.jsonPointer == "/count")
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.debugDescription.contains(message))
        #expect(context.debugDescription.contains("\"/count\""))
    }

    @Test("UInt64 beyond Int64 and Int64.min decode exactly")
    func bigIntegersDecode() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(UInt64.self, from: JSONValue(parsing: "18446744073709551615")) == .max)
        #expect(try decoder.decode(Int64.self, from: JSONValue(parsing: "-9223372036854775808")) == .min)
        #expect(throws: DecodingError.self) { try decoder.decode(UInt64.self, from: JSONValue(parsing: "18446744073709551616")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int64.self, from: JSONValue(parsing: "9223372036854775808")) }
    }

    @Test("doubles are the shortest text that reads back exactly", arguments: [
        (0.1, "0.1"), (1e300, "1e300"), (-0.0, "-0"), (Double.leastNonzeroMagnitude, "5e-324"), (0.30000000000000004, "0.30000000000000004"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e308"), (123456789.125, "123456789.125"), (2.0, "2"),
    ])
    func doubles(value: Double, text: String) throws {
        let json = try JSONValueEncoder().encode(value)
        #expect(json.serialized() == text)
        let decoded = try JSONValueDecoder().decode(Double.self, from: json)
        #expect(decoded.bitPattern == value.bitPattern)
    }

    @Test("floats print their own shortest text and read back exactly")
    func floats() throws {
        try expectRoundTrip(Measurements(values: [0.1], ratio: 0.1), #"{"values":[0.1],"ratio":0.1}"#)
        try expectRoundTrip(Float(1e10), "1e10")
        try expectRoundTrip(Float(16_777_216), "16777216")
        let tiny = try JSONValueDecoder().decode(Float.self, from: JSONValue(parsing: "1.00000001"))
        #expect(tiny == 1)
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([Float].self, from: JSONValue(parsing: "[1, 1e39]"))
        }
        #expect(error.jsonPointer == "/1")
    }

    @Test("Decimal is a number with all its digits")
    func decimals() throws {
        let value = try #require(Decimal(string: "12345678901234567890.125", locale: nil))
        try expectRoundTrip(value, "12345678901234567890.125")
        try expectRoundTrip([Decimal(string: "-0.001", locale: nil)!], "[-0.001]")
        #expect(try JSONValueDecoder().decode(Decimal.self, from: JSONValue(parsing: "1.5e3")) == 1500)
    }

    @Test("non-finite numbers throw by default, naming the path")
    func nonFiniteThrows() throws {
        let value = Measurements(values: [1, .nan], ratio: 1)
        let error = try #require(throws: EncodingError.self) { try JSONValueEncoder().encode(value) }
        #expect(error.jsonPointer == "/values/1")
        guard case .invalidValue(_, let context) = error else { return }
        #expect(context.debugDescription.contains("\"/values/1\""))
        #expect(context.debugDescription.contains("convertToString"))

        let floatError = try #require(throws: EncodingError.self) {
            try JSONValueEncoder().encode(Measurements(values: [], ratio: -.infinity))
        }
        #expect(floatError.jsonPointer == "/ratio")
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Double.infinity) }
    }

    @Test("non-finite numbers become strings and read back when asked")
    func nonFiniteStrings() throws {
        let value = Measurements(values: [.infinity, 2, -.infinity], ratio: .nan)
        let encoder = JSONValueEncoder(nonConformingFloatEncodingStrategy: .convertToString)
        let json = try encoder.encode(value)
        #expect(json.serialized() == #"{"values":["Infinity",2,"-Infinity"],"ratio":"NaN"}"#)

        let decoded = try JSONValueDecoder(nonConformingFloatDecodingStrategy: .convertFromString)
            .decode(Measurements.self, from: json)
        #expect(decoded.values[0] == .infinity && decoded.values[1] == 2 && decoded.values[2] == -.infinity)
        #expect(decoded.ratio.isNaN)

        let error = try #require(throws: DecodingError.self) { try JSONValueDecoder().decode(Measurements.self, from: json) }
        #expect(error.jsonPointer == "/values/0")
        guard case .typeMismatch = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
    }

    @Test("encodeReportingNonFinite converts whatever the strategy and lists the pointers")
    func reportingNonFinite() throws {
        struct State: Codable { var stats: [String: Double]; var samples: [Float]; var decimal: Decimal }
        let state = State(stats: ["mean": .nan], samples: [1, .infinity], decimal: .nan)
        let encoded = try JSONValueEncoder().encodeReportingNonFinite(state)
        #expect(encoded.value == ["stats": ["mean": "NaN"], "samples": [1, "Infinity"], "decimal": "NaN"])
        #expect(encoded.nonFinitePointers == ["/stats/mean", "/samples/1", "/decimal"])

        let clean = try JSONValueEncoder().encodeReportingNonFinite(Measurements(values: [1], ratio: 2))
        #expect(clean.nonFinitePointers.isEmpty)
        #expect(clean.value == ["values": [1], "ratio": 2])
    }
}
