import Foundation
import RewindJSON
import Testing
import RewindTestSupport
import RewindSupport

@Suite("Codable bridge: dates", .ownThreads)
struct CodableBridgeDateTests {
    enum Strategy: String, CaseIterable {
        case seconds, milliseconds, iso8601

        var encoder: JSONValueEncoder {
            switch self {
            case .seconds: JSONValueEncoder(dateEncodingStrategy: .secondsSince1970)
            case .milliseconds: JSONValueEncoder(dateEncodingStrategy: .millisecondsSince1970)
            case .iso8601: JSONValueEncoder(dateEncodingStrategy: .iso8601)
            }
        }

        var decoder: JSONValueDecoder {
            switch self {
            case .seconds: JSONValueDecoder(dateDecodingStrategy: .secondsSince1970)
            case .milliseconds: JSONValueDecoder(dateDecodingStrategy: .millisecondsSince1970)
            case .iso8601: JSONValueDecoder(dateDecodingStrategy: .iso8601)
            }
        }
    }

    static let awkwardDates: [Date] = [
        Date(),
        Date(timeIntervalSinceReferenceDate: 790_000_000.123456789),
        Date(timeIntervalSinceReferenceDate: -1_000_000_000.1),
        Date(timeIntervalSinceReferenceDate: 0.000_000_1),
        Date(timeIntervalSince1970: -0.25),
        Date(timeIntervalSince1970: 0),
        Date.distantPast,
        Date.distantFuture,
    ]

    @Test("every strategy gives back the very same Date", arguments: Strategy.allCases, awkwardDates)
    func exactRoundTrip(strategy: Strategy, date: Date) throws {
        let json = try strategy.encoder.encode(date)
        let decoded = try strategy.decoder.decode(Date.self, from: json)
        #expect(
            decoded.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern,
            "\(json) read back as \(decoded.timeIntervalSinceReferenceDate), not \(date.timeIntervalSinceReferenceDate)"
        )
    }

    @Test("random dates with sub-microsecond bits round-trip exactly", arguments: Strategy.allCases)
    func randomDates(strategy: Strategy) throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let whole = Double(Int64(generator.next() % 20_000_000_000) - 10_000_000_000)
            let fraction = Double(generator.next() % 1_000_000_007) / 1_000_000_007
            let date = Date(timeIntervalSinceReferenceDate: whole + fraction)
            let decoded = try strategy.decoder.decode(Date.self, from: strategy.encoder.encode(date))
            #expect(decoded.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    @Test("the default is seconds since 1970, as an exact number")
    func defaultSeconds() throws {
        #expect(try JSONValueEncoder().encode(Date(timeIntervalSince1970: 1_700_000_000.5)).serialized() == "1700000000.5")
        // Double arithmetic would print 1768307200.123457 here and lose the last bits.
        let date = Date(timeIntervalSinceReferenceDate: 790_000_000.123456789)
        #expect(try JSONValueEncoder().encode(date).serialized() == "1768307200.1234568")
    }

    @Test("milliseconds and ISO 8601 spellings", arguments: [
        (1_700_000_000.5, Strategy.milliseconds, "1700000000500"),
        (1_700_000_000.5, Strategy.iso8601, #""2023-11-14T22:13:20.5Z""#),
        (1_700_000_000, Strategy.iso8601, #""2023-11-14T22:13:20Z""#),
        (-0.25, Strategy.iso8601, #""1969-12-31T23:59:59.75Z""#),
        (951_782_400, Strategy.iso8601, #""2000-02-29T00:00:00Z""#),
        (-2_208_988_800, Strategy.iso8601, #""1900-01-01T00:00:00Z""#),
    ])
    func spellings(seconds: Double, strategy: Strategy, text: String) throws {
        #expect(try strategy.encoder.encode(Date(timeIntervalSince1970: seconds)).serialized() == text)
    }

    @Test("ISO 8601 strings agree with Foundation's formatter across centuries")
    func calendarMatchesFoundation() throws {
        let formatter = ISO8601DateFormatter()
        var generator = SplitMix64(seed: 42)
        for _ in 0..<500 {
            // Whole seconds between 1600 and 2400.
            let seconds = Double(Int64(generator.next() % 25_246_000_000) - 11_676_096_000)
            let date = Date(timeIntervalSince1970: seconds)
            let ours = try JSONValueEncoder(dateEncodingStrategy: .iso8601).encode(date)
            #expect(ours.stringValue == formatter.string(from: date))
        }
    }

    @Test("ISO 8601 input may carry an offset and any number of fractional digits", arguments: [
        "2023-11-15T00:13:20.5+02:00", "2023-11-14T22:13:20.500000Z", "2023-11-14t22:13:20.5z", "2023-11-14T20:43:20.5-0130",
    ])
    func isoInput(text: String) throws {
        let decoder = JSONValueDecoder(dateDecodingStrategy: .iso8601)
        #expect(try decoder.decode(Date.self, from: .string(text)) == Date(timeIntervalSince1970: 1_700_000_000.5))
    }

    @Test("malformed ISO 8601 input is an error at its path", arguments: [
        "2023-02-30T00:00:00Z", "2023-11-14 22:13:20Z", "2023-11-14T22:13:20", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20.Z", "",
    ])
    func isoMalformed(text: String) throws {
        let decoder = JSONValueDecoder(dateDecodingStrategy: .iso8601)
        let error = try #require(throws: DecodingError.self) {
            try decoder.decode([String: Date].self, from: ["when": .string(text)])
        }
        #expect(error.jsonPointer == "/when")
    }

    @Test("a date beyond the year 9999 cannot be an ISO 8601 string")
    func isoOutOfRange() throws {
        let error = try #require(throws: EncodingError.self) {
            try JSONValueEncoder(dateEncodingStrategy: .iso8601).encode(["at": Date(timeIntervalSince1970: 1e12)])
        }
        #expect(error.jsonPointer == "/at")
    }

    @Test("deferredToDate and custom strategies")
    func deferredAndCustom() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        try expectRoundTrip(
            date, "12.5",
            encoder: JSONValueEncoder(dateEncodingStrategy: .deferredToDate),
            decoder: JSONValueDecoder(dateDecodingStrategy: .deferredToDate)
        )
        try expectRoundTrip(
            date, #"{"ref":12.5}"#,
            encoder: JSONValueEncoder(dateEncodingStrategy: .custom { date, encoder in
                var container = encoder.container(keyedBy: JSONKey.self)
                try container.encode(date.timeIntervalSinceReferenceDate, forKey: JSONKey(stringValue: "ref"))
            }),
            decoder: JSONValueDecoder(dateDecodingStrategy: .custom { decoder in
                let container = try decoder.container(keyedBy: JSONKey.self)
                return Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: JSONKey(stringValue: "ref")))
            })
        )
    }

    @Test("a date from a string where a number is expected is a type mismatch at its path")
    func dateTypeMismatch() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([Date].self, from: [1, "2023-11-14T22:13:20Z"])
        }
        #expect(error.jsonPointer == "/1")
    }
}

/// A string coding key for hand-written containers in tests.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
