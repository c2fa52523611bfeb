import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("Codable bridge: agreement with Foundation", .ownThreads)
struct CodableBridgeFoundationTests {
    /// Checks that the bridge and Foundation's JSONEncoder give equal JSON for `value` with the
    /// given strategies, and that each side's decoder reads the other side's output back.
    func expectAgreement<T: Codable & Equatable>(
        _ value: T,
        date: (JSONValueEncoder.DateEncodingStrategy, JSONEncoder.DateEncodingStrategy) = (.secondsSince1970, .secondsSince1970),
        dateDecoding: (JSONValueDecoder.DateDecodingStrategy, JSONDecoder.DateDecodingStrategy) = (.secondsSince1970, .secondsSince1970),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ours = try JSONValueEncoder(dateEncodingStrategy: date.0, nonConformingFloatEncodingStrategy: .convertToString)
            .encode(value)
        let foundationEncoder = JSONEncoder()
        foundationEncoder.dateEncodingStrategy = date.1
        foundationEncoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN"
        )
        let foundationData = try foundationEncoder.encode(value)
        let theirs = try JSONValue(parsing: foundationData)
        #expect(ours == theirs, "ours: \(ours)\ntheirs: \(theirs)", sourceLocation: sourceLocation)

        let foundationDecoder = JSONDecoder()
        foundationDecoder.dateDecodingStrategy = dateDecoding.1
        foundationDecoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN"
        )
        let decodedByFoundation = try foundationDecoder.decode(T.self, from: Data(ours.serialized().utf8))
        #expect(decodedByFoundation == value, sourceLocation: sourceLocation)
        let decodedByUs = try JSONValueDecoder(dateDecodingStrategy: dateDecoding.0, nonConformingFloatDecodingStrategy: .convertFromString)
            .decode(T.self, from: theirs)
        #expect(decodedByUs == value, sourceLocation: sourceLocation)
    }

    @Test("structures, enums, dictionaries and classes")
    func structures() throws {
        try expectAgreement(User(
            id: 7, name: "Ada", address: Address(street: "1 Loop", zip: "N1"),
            tags: ["a"], nickname: nil, scores: ["math": 9.5, "art": 0.1]
        ))
        try expectAgreement([Shape.circle(radius: 2), .rect(1, 2), .point, .labeled("x", at: -1)])
        try expectAgreement([1: "one", 2: "two"])
        try expectAgreement([Priority.low: 1, .high: 2])
        try expectAgreement(Polygon(name: "tri", points: [(1, 2), (3, 4)]))
        try expectAgreement(Ordered())
        try expectAgreement(Empty())
        try expectAgreement([[Int?]]([[1, nil], []]))
    }

    @Test("numbers, data, URLs and decimals")
    func scalars() throws {
        try expectAgreement(Extremes())
        try expectAgreement([0.1, 1e300, -0.0, .leastNonzeroMagnitude, 123456789.125, 2])
        try expectAgreement(Measurements(values: [.infinity, -.infinity, 1], ratio: 0.1))
        try expectAgreement(Data([0, 1, 2, 250, 255]))
        try expectAgreement(URL(string: "https://example.com/a?b=c"))
        try expectAgreement([Decimal(string: "12345.678", locale: nil)!, Decimal(-3)])
    }

    @Test("dates with matching strategies")
    func dates() throws {
        let dates = [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: -86_400.5)]
        try expectAgreement(dates)
        try expectAgreement(
            dates, date: (.millisecondsSince1970, .millisecondsSince1970),
            dateDecoding: (.millisecondsSince1970, .millisecondsSince1970)
        )
        try expectAgreement(
            dates, date: (.deferredToDate, .deferredToDate), dateDecoding: (.deferredToDate, .deferredToDate)
        )
        // Foundation's ISO 8601 strategy has no fractional seconds.
        try expectAgreement(
            [Date(timeIntervalSince1970: 1_700_000_000)], date: (.iso8601, .iso8601), dateDecoding: (.iso8601, .iso8601)
        )
    }

    @Test("JSONValue travels through Foundation's JSONEncoder and JSONDecoder")
    func jsonValueThroughFoundation() throws {
        let payload = try JSONValue(parsing: #"""
            {"type":"add","items":[1,-2.5,"x",true,null,{"deep":[[]]}],"big":18446744073709551615,"min":-9223372036854775808,"ratio":0.1}
            """#)
        let envelope = Envelope(id: 3, payload: payload, extra: ["note": "hi"])
        let data = try JSONEncoder().encode(envelope)
        #expect(try JSONValue(parsing: data) == ["id": 3, "payload": payload, "extra": ["note": "hi"]])
        let decoded = try JSONDecoder().decode(Envelope.self, from: data)
        #expect(decoded == envelope)
        #expect(decoded.payload["big"]?.numberValue?.uint64Value == .max)
        #expect(decoded.payload["min"]?.numberValue?.int64Value == .min)

        let bare = try JSONDecoder().decode(JSONValue.self, from: Data(#"[1,"two",{"three":3}]"#.utf8))
        #expect(bare == [1, "two", ["three": 3]])
        #expect(try JSONValue(parsing: JSONEncoder().encode(bare)) == bare)
    }

    @Test("a number beyond Double cannot go through Foundation's encoder")
    func hugeNumberThroughFoundation() throws {
        let huge = try JSONValue(parsing: "[1e400]")
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(huge) }
        #expect(try JSONValueEncoder().encode(huge).serialized() == "[1e400]")
    }
}
