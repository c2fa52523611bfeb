import Foundation
import RewindJSON
import Testing
import RewindTestSupport

@Suite("Codable bridge: errors name the path", .ownThreads)
struct CodableBridgeErrorTests {
    static let order: JSONValue = [
        "id": 1,
        "items": [
            ["name": "a", "quantity": 1],
            ["name": "b", "quantity": 2],
            ["name": "c", "quantity": 3],
            ["name": 4, "quantity": 4],
        ],
    ]

    @Test("a wrong type deep inside gives its pointer")
    func typeMismatch() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Order.self, from: Self.order)
        }
        #expect(error.jsonPointer == "/items/3/name")
        guard case .typeMismatch(let type, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(context.debugDescription == #"Expected String at "/items/3/name" but found a number."#)
    }

    @Test("a missing key gives the pointer it would have had")
    func keyNotFound() throws {
        let value: JSONValue = ["id": 1, "items": [["name": "a", "quantity": 1], ["name": "b"]]]
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Order.self, from: value)
        }
        #expect(error.jsonPointer == "/items/1/quantity")
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "quantity")
        #expect(context.codingPath.jsonPointer == "/items/1")
    }

    @Test("null where a value is required is valueNotFound")
    func valueNotFound() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Order.self, from: ["id": nil, "items": []])
        }
        #expect(error.jsonPointer == "/id")
        guard case .valueNotFound = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
    }

    @Test("a container of the wrong kind", arguments: [
        (["id": 1, "items": ["name": "a"]] as JSONValue, "/items"),
        (["id": 1, "items": [7]] as JSONValue, "/items/0"),
        ([1, 2] as JSONValue, ""),
    ])
    func wrongContainer(value: JSONValue, pointer: String) throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Order.self, from: value)
        }
        #expect(error.jsonPointer == pointer)
    }

    @Test("reading past the end of an array")
    func pastTheEnd() throws {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([String: Pair].self, from: ["pair": [1]])
        }
        #expect(error.jsonPointer == "/pair/1")
    }

    @Test("a failed decode in an array leaves the position where it was")
    func positionAfterFailure() throws {
        struct Lenient: Decodable {
            var values: [Int] = []
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                while !container.isAtEnd {
                    if let value = try? container.decode(Int.self) {
                        values.append(value)
                    } else {
                        _ = try container.decode(JSONValue.self)
                    }
                }
            }
        }
        let decoded = try JSONValueDecoder().decode(Lenient.self, from: [1, "x", 2, nil, 3])
        #expect(decoded.values == [1, 2, 3])
    }

    @Test("pointers escape ~ and / and number array positions")
    func pointerEscaping() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([String: [Int]].self, from: ["a/b~c": [1, "x"]])
        }
        #expect(error.jsonPointer == "/a~1b~0c/1")
        #expect(([] as [any CodingKey]).jsonPointer == "")
    }

    @Test("Foundation's errors render to the same pointers")
    func foundationPointers() throws {
        let data = Data(Self.order.serialized().utf8)
        let error = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Order.self, from: data) }
        #expect(error.jsonPointer == "/items/3/name")
    }
}
