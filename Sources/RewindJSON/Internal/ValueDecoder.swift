/// The `Decoder` handed to `init(from:)`: one JSON value and where it sits. It is also its own
/// single-value container.
struct ValueDecoder: Decoder {
    let value: JSONValue
    let path: CodingPathNode
    let context: DecodingContext

    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw context.mismatch([String: JSONValue].self, value, at: { path })
        }
        return KeyedDecodingContainer(ObjectDecodingContainer<Key>(object: object, path: path, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw context.mismatch([JSONValue].self, value, at: { path })
        }
        return ArrayDecodingContainer(elements: elements, path: path, context: context)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer { self }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try context.bool(value, at: { path }) }
    func decode(_ type: String.Type) throws -> String { try context.string(value, at: { path }) }
    func decode(_ type: Double.Type) throws -> Double { try context.double(value, at: { path }) }
    func decode(_ type: Float.Type) throws -> Float { try context.float(value, at: { path }) }
    func decode(_ type: Int.Type) throws -> Int { try context.integer(type, value, at: { path }) }
    func decode(_ type: Int8.Type) throws -> Int8 { try context.integer(type, value, at: { path }) }
    func decode(_ type: Int16.Type) throws -> Int16 { try context.integer(type, value, at: { path }) }
    func decode(_ type: Int32.Type) throws -> Int32 { try context.integer(type, value, at: { path }) }
    func decode(_ type: Int64.Type) throws -> Int64 { try context.integer(type, value, at: { path }) }
    func decode(_ type: UInt.Type) throws -> UInt { try context.integer(type, value, at: { path }) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try context.integer(type, value, at: { path }) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try context.integer(type, value, at: { path }) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try context.integer(type, value, at: { path }) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try context.integer(type, value, at: { path }) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try context.integer(type, value, at: { path }) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try context.integer(type, value, at: { path }) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decodeValue(type, from: value, at: { path })
    }
}
