/// The keyed container of ``ValueDecoder``: reads the members of one object.
struct ObjectDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let path: CodingPathNode
    let context: DecodingContext

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        object.keys.compactMap { name in
            Key(stringValue: name) ?? (Self.observable ? Key(stringValue: "_" + name) : nil)
        }
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    /// The keys are an `@ObservableState` state's (``ObservableStateKeys``): `_name` is read
    /// from `name` when the object has no `_name`, and the registrar from nothing.
    private static var observable: Bool { Key(stringValue: ObservableStateKeys.registrar) != nil }

    private func lookup(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        if let value = object[name] { return value }
        guard name.utf8.first == UInt8(ascii: "_"), Self.observable else { return nil }
        if name == ObservableStateKeys.registrar { return .object(JSONObject()) }
        return object[String(name.dropFirst())]
    }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = lookup(key) else {
            let keys = path.keys
            throw DecodingError.keyNotFound(key, .init(
                codingPath: keys,
                debugDescription: "No value for key \"\(key.stringValue)\" at \"\((keys + [key]).jsonPointer)\"."
            ))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try context.bool(value(key), at: { path.appending(key) })
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try context.string(value(key), at: { path.appending(key) })
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try context.double(value(key), at: { path.appending(key) })
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try context.float(value(key), at: { path.appending(key) })
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, key) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, key) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try context.integer(type, value(key), at: { path.appending(key) })
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decodeValue(type, from: value(key), at: { path.appending(key) })
    }

    /// One lookup instead of the default's three (`contains`, `decodeNil`, `decode`).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try context.decodeValue(type, from: value, at: { path.appending(key) })
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: value(key), path: path.appending(key), context: context).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), path: path.appending(key), context: context).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(named: JSONCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(named: key)
    }

    /// A missing member decodes as `null`, as in Foundation, so that an optional super value works.
    private func superDecoder(named key: any CodingKey) -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, path: path.appending(key), context: context)
    }
}

/// The unkeyed container of ``ValueDecoder``: reads the elements of one array in turn. The
/// position only moves past an element once it has decoded.
struct ArrayDecodingContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: CodingPathNode
    let context: DecodingContext
    private(set) var currentIndex = 0

    init(elements: [JSONValue], path: CodingPathNode, context: DecodingContext) {
        self.elements = elements
        self.path = path
        self.context = context
    }

    var codingPath: [any CodingKey] { path.keys }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    /// Decodes the current element with `body` and moves past it. `body` gets the context as an
    /// argument so that it need not capture `self`, which this mutating call holds.
    private mutating func next<R>(
        _ type: Any.Type, _ body: (DecodingContext, JSONValue, () -> CodingPathNode) throws -> R
    ) throws -> R {
        let index = currentIndex
        let base = path
        let elementPath = { base.appending(index: index) }
        guard index < elements.count else {
            let keys = elementPath().keys
            throw DecodingError.valueNotFound(type, .init(
                codingPath: keys,
                debugDescription: "Expected \(type) at \"\(keys.jsonPointer)\" but the array has only \(elements.count) elements."
            ))
        }
        let result = try body(context, elements[index], elementPath)
        currentIndex = index + 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        let isNull = try next(Never?.self) { _, value, _ in value.isNull }
        // Only a null is consumed; anything else is left for the decode that follows.
        if !isNull { currentIndex -= 1 }
        return isNull
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool($1, at: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string($1, at: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.double($1, at: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.float($1, at: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try next(type) { try $0.integer(type, $1, at: $2) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decodeValue(type, from: $1, at: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { context, value, path in
            try ValueDecoder(value: value, path: path(), context: context).container(keyedBy: type)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { context, value, path in
            try ValueDecoder(value: value, path: path(), context: context).unkeyedContainer()
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { context, value, path in
            ValueDecoder(value: value, path: path(), context: context)
        }
    }
}
