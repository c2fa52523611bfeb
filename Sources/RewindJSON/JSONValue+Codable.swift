/// `JSONValue` encodes as the JSON it is, so `Codable` types (wire messages, for one) can embed
/// arbitrary JSON.
///
/// With ``JSONValueEncoder`` and ``JSONValueDecoder`` the value is taken over as it is, exact
/// numbers and key order included. Other coders (Foundation's `JSONEncoder` and `JSONDecoder`)
/// see a tree of their own primitives: integers that fit `Int64` or `UInt64` stay exact, other
/// numbers pass through `Double`, and object keys come back in whatever order the decoder lists
/// them (JSON equality does not depend on it).
///
/// ```swift
/// struct Event: Codable { var seq: Int; var action: JSONValue }
/// let data = try JSONEncoder().encode(Event(seq: 1, action: ["type": "increment"]))
/// // {"seq":1,"action":{"type":"increment"}}
/// ```
extension JSONValue: Codable {
    /// Encodes the value as the JSON it is: as itself into ``JSONValueEncoder``, as a tree of
    /// containers and primitives into any other encoder.
    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? ValueEncoder {
            encoder.store(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try Self.encode(number, into: &container)
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for (key, value) in object { try container.encode(value, forKey: JSONCodingKey(stringValue: key)) }
        }
    }

    private static func encode(_ number: JSONNumber, into container: inout any SingleValueEncodingContainer) throws {
        if let integer = number.int64Value {
            try container.encode(integer)
        } else if let integer = number.uint64Value {
            try container.encode(integer)
        } else {
            let double = number.doubleValue
            guard double.isFinite else {
                throw EncodingError.invalidValue(number, EncodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "The number \(number.text) is beyond the range of Double; "
                        + "encode with JSONValueEncoder to keep it exactly."
                ))
            }
            try container.encode(double)
        }
    }

    /// Reads whatever JSON the decoder holds: the value itself from ``JSONValueDecoder``, a tree
    /// of containers and primitives from any other decoder.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? ValueDecoder {
            self = decoder.value
            return
        }
        if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = container.count { elements.reserveCapacity(count) }
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            self = try Self.decodeScalar(from: decoder.singleValueContainer())
        }
    }

    private static func decodeScalar(from container: any SingleValueDecodingContainer) throws -> JSONValue {
        if container.decodeNil() { return .null }
        if let bool = try? container.decode(Bool.self) { return .bool(bool) }
        if let integer = try? container.decode(Int64.self) { return .number(JSONNumber(integer)) }
        if let integer = try? container.decode(UInt64.self) { return .number(JSONNumber(integer)) }
        if let double = try? container.decode(Double.self), let number = JSONNumber(double) { return .number(number) }
        if let string = try? container.decode(String.self) { return .string(string) }
        throw DecodingError.dataCorrupted(.init(
            codingPath: container.codingPath, debugDescription: "The value is not one JSON can hold."
        ))
    }
}
