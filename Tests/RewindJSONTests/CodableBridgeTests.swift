import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Encodes with the bridge, checks the compact text, decodes back and checks equality.
func expectRoundTrip<T: Codable & Equatable>(
    _ value: T, _ expected: String? = nil,
    encoder: JSONValueEncoder = JSONValueEncoder(), decoder: JSONValueDecoder = JSONValueDecoder(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let json = try encoder.encode(value)
    if let expected {
        #expect(json.serialized() == expected, sourceLocation: sourceLocation)
    }
    let decoded = try decoder.decode(T.self, from: json)
    #expect(decoded == value, sourceLocation: sourceLocation)
}

@Suite("Codable bridge: structures", .ownThreads)
struct CodableBridgeTests {
    let user = User(
        id: 7, name: "Ada", address: Address(street: "1 Loop", zip: nil),
        tags: ["admin", "ops"], nickname: "countess", scores: ["math": 9.5]
    )

    @Test("nested structs keep their property order")
    func nestedStruct() throws {
        try expectRoundTrip(
            user,
            #"{"id":7,"name":"Ada","address":{"street":"1 Loop"},"tags":["admin","ops"],"nickname":"countess","scores":{"math":9.5}}"#
        )
        let keys = try JSONValueEncoder().encode(Ordered()).objectValue?.keys
        #expect(keys == ["zebra", "apple", "mango"])
    }

    @Test("enums with associated values use the synthesised shape", arguments: [
        (Shape.circle(radius: 2), #"{"circle":{"radius":2}}"#),
        (Shape.rect(1.5, 2), #"{"rect":{"_0":1.5,"_1":2}}"#),
        (Shape.point, #"{"point":{}}"#),
        (Shape.labeled("corner", at: 3), #"{"labeled":{"_0":"corner","at":3}}"#),
    ])
    func enumsWithAssociatedValues(shape: Shape, expected: String) throws {
        try expectRoundTrip(shape, expected)
    }

    @Test("optionals: nil is left out, null and an absent key both read back as nil")
    func optionals() throws {
        try expectRoundTrip(Address(street: "x", zip: nil), #"{"street":"x"}"#)
        try expectRoundTrip(Address(street: "x", zip: "123"), #"{"street":"x","zip":"123"}"#)
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Address.self, from: ["street": "x", "zip": nil]) == Address(street: "x", zip: nil))
        try expectRoundTrip([1, nil, 3] as [Int?], "[1,null,3]")
        try expectRoundTrip(Int?.none, "null")
        try expectRoundTrip(Int?.some(4), "4")
    }

    @Test("arrays, nested arrays and top-level scalars")
    func arraysAndScalars() throws {
        try expectRoundTrip([[1, 2], [], [3]], "[[1,2],[],[3]]")
        try expectRoundTrip(["a", "b"], #"["a","b"]"#)
        try expectRoundTrip(true, "true")
        try expectRoundTrip("text", #""text""#)
        try expectRoundTrip(42, "42")
        try expectRoundTrip(Empty(), "{}")
    }

    @Test("dictionaries with String and Int keys are objects")
    func dictionaries() throws {
        let byName = ["a": 1, "b": 2]
        #expect(try JSONValueEncoder().encode(byName) == ["a": 1, "b": 2])
        try expectRoundTrip(byName)

        let byNumber = [1: "one", -20: "minus twenty"]
        #expect(try JSONValueEncoder().encode(byNumber) == ["1": "one", "-20": "minus twenty"])
        try expectRoundTrip(byNumber)
        try expectRoundTrip([3: [1: true]], #"{"3":{"1":true}}"#)
    }

    @Test("dictionaries keyed by String enums are objects, with or without CodingKeyRepresentable")
    func enumKeyedDictionaries() throws {
        try expectRoundTrip([Status.active: 3], #"{"active":3}"#)
        try expectRoundTrip([Priority.high: ["x"]], #"{"high":["x"]}"#)
        // The flat array Foundation writes for the first kind still reads back.
        let decoded = try JSONValueDecoder().decode([Status: Int].self, from: ["archived", 5])
        #expect(decoded == [.archived: 5])
    }

    @Test("an unknown enum key is an error at its path")
    func unknownEnumKey() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([String: [Status: Int]].self, from: ["group": ["deleted": 1]])
        }
        #expect(error.jsonPointer == "/group/deleted")
    }

    @Test("URLs are their absolute string")
    func urls() throws {
        let url = try #require(URL(string: "https://example.com/a%20b?q=1#top"))
        try expectRoundTrip(url, #""https://example.com/a%20b?q=1#top""#)
        let relative = try #require(URL(string: "docs/index.html", relativeTo: URL(string: "https://example.com/")))
        #expect(try JSONValueEncoder().encode(relative) == "https://example.com/docs/index.html")
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([URL].self, from: ["https://ok.example", 3])
        }
        #expect(error.jsonPointer == "/1")
    }

    @Test("Data is Base64 by default, bytes when deferred")
    func data() throws {
        let bytes = Data([0, 1, 2, 250, 255])
        try expectRoundTrip(bytes, #""AAEC+v8=""#)
        try expectRoundTrip(
            bytes, "[0,1,2,250,255]",
            encoder: JSONValueEncoder(dataEncodingStrategy: .deferredToData),
            decoder: JSONValueDecoder(dataDecodingStrategy: .deferredToData)
        )
        try expectRoundTrip(
            bytes, #""0001 02fa ff""#,
            encoder: JSONValueEncoder(dataEncodingStrategy: .custom { data, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(data.map { String(format: "%02x", $0) }.joined().chunked(4))
            }),
            decoder: JSONValueDecoder(dataDecodingStrategy: .custom { decoder in
                let hex = try decoder.singleValueContainer().decode(String.self).filter { $0 != " " }
                return Data(stride(from: 0, to: hex.count, by: 2).map { offset in
                    let start = hex.index(hex.startIndex, offsetBy: offset)
                    return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
                })
            })
        )
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode([String: Data].self, from: ["blob": "not base64!"])
        }
        #expect(error.jsonPointer == "/blob")
    }

    @Test("classes: superEncoder nests the superclass, a shared container merges it")
    func classes() throws {
        let dog = Dog(name: "Rex", breed: "collie")
        let dogJSON = try JSONValueEncoder().encode(dog)
        #expect(dogJSON.serialized() == #"{"breed":"collie","super":{"name":"Rex"}}"#)
        let decodedDog = try JSONValueDecoder().decode(Dog.self, from: dogJSON)
        #expect(decodedDog.name == "Rex" && decodedDog.breed == "collie")

        let cat = Cat(name: "Tom", lives: 9)
        let catJSON = try JSONValueEncoder().encode(cat)
        #expect(catJSON.serialized() == #"{"name":"Tom","lives":9}"#)
        let decodedCat = try JSONValueDecoder().decode(Cat.self, from: catJSON)
        #expect(decodedCat.name == "Tom" && decodedCat.lives == 9)
    }

    @Test("nested containers filled after they are handed out land in place")
    func nestedContainers() throws {
        try expectRoundTrip(
            Polygon(name: "tri", points: [(0, 0), (4, 3)]),
            #"{"meta":{"name":"tri"},"points":[{"x":0,"y":[0]},{"x":4,"y":[3]}]}"#
        )
    }

    @Test("an unkeyed container's super encoder and decoder take the next element")
    func unkeyedSuper() throws {
        struct Wrapped: Codable, Equatable {
            var first: Int
            var address: Address
            init(first: Int, address: Address) {
                self.first = first
                self.address = address
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(first)
                try address.encode(to: container.superEncoder())
            }
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                first = try container.decode(Int.self)
                address = try Address(from: container.superDecoder())
            }
        }
        try expectRoundTrip(Wrapped(first: 1, address: Address(street: "s")), #"[1,{"street":"s"}]"#)
    }

    @Test("encoding a key twice keeps its first place and its last value")
    func repeatedKey() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                try container.encode(2, forKey: .b)
                try container.encode(3, forKey: .a)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .b)
                try nested.encode(true, forKey: .a)
            }
        }
        #expect(try JSONValueEncoder().encode(Twice()).serialized() == #"{"a":3,"b":{"a":true}}"#)
    }

    @Test("a JSONValue inside a Codable value is taken over exactly")
    func embeddedJSONValue() throws {
        let payload = try JSONValue(parsing: #"{"z":1.10,"a":[12345678901234567890123,-0],"m":null}"#)
        let envelope = Envelope(id: 1, payload: payload, extra: nil)
        let json = try JSONValueEncoder().encode(envelope)
        #expect(json.serialized() == #"{"id":1,"payload":{"z":1.10,"a":[12345678901234567890123,-0],"m":null}}"#)
        let decoded = try JSONValueDecoder().decode(Envelope.self, from: json)
        #expect(decoded.payload.serialized() == payload.serialized())
        #expect(try JSONValueEncoder().encode(payload).serialized() == payload.serialized())
    }

    @Test("userInfo reaches encode(to:) and init(from:)")
    func userInfo() throws {
        let info: [CodingUserInfoKey: any Sendable] = [Tagged.tagKey: "hello"]
        #expect(try JSONValueEncoder(userInfo: info).encode(Tagged()) == "hello")
        #expect(try JSONValueDecoder(userInfo: info).decode(Tagged.self, from: nil).tag == "hello")
    }
}

private extension String {
    /// The string cut into groups of `size` characters, joined by spaces.
    func chunked(_ size: Int) -> String {
        var groups: [Substring] = []
        var start = startIndex
        while start < endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            groups.append(self[start..<end])
            start = end
        }
        return groups.joined(separator: " ")
    }
}
