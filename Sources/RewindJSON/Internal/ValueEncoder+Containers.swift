import Foundation

/// The keyed container of ``ValueEncoder``: writes members into an ``ObjectBuilder``.
struct ObjectEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let context: EncodingContext
    let builder: ObjectBuilder
    let path: CodingPathNode
    /// Where member values are remembered (see ``ValueEncoder/frame``).
    var frame: MemoFrame? = nil

    var codingPath: [any CodingKey] { path.keys }

    private func set(_ value: JSONValue, _ key: Key) { builder.set(value, forKey: key.stringValue) }

    mutating func encodeNil(forKey key: Key) { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(.number(JSONNumber(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.number(JSONNumber(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(.number(JSONNumber(value)), key) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func encode(_ value: Int128, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func encode(_ value: UInt128, forKey key: Key) { set(.number(NumberBridge.number(value)), key) }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try context.number(value, at: { path.appending(key) }), key)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try context.number(value, at: { path.appending(key) }), key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if key.stringValue == ObservableStateKeys.registrar {
            builder.markObservable()
            return
        }
        set(try context.encodeValue(value, at: { path.appending(key) }, in: frame, key: frame == nil ? .single : .name(key.stringValue)), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBuilder()
        builder.set(pending: .object(nested), forKey: key.stringValue)
        return KeyedEncodingContainer(ObjectEncodingContainer<NestedKey>(
            context: context, builder: nested, path: path.appending(key)
        ))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        builder.set(pending: .array(nested), forKey: key.stringValue)
        return ArrayEncodingContainer(context: context, builder: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: JSONCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let encoder = ValueEncoder(context: context, path: path.appending(key))
        builder.set(pending: .encoder(encoder), forKey: key.stringValue)
        return encoder
    }
}

/// The unkeyed container of ``ValueEncoder``: appends elements to an ``ArrayBuilder``.
struct ArrayEncodingContainer: UnkeyedEncodingContainer {
    let context: EncodingContext
    let builder: ArrayBuilder
    let path: CodingPathNode
    /// Where elements are remembered (see ``ValueEncoder/frame``).
    var frame: MemoFrame? = nil

    var codingPath: [any CodingKey] { path.keys }

    var count: Int { builder.count }

    private func append(_ value: JSONValue) { builder.append(value) }

    /// The path of the element about to be appended.
    private var nextPath: CodingPathNode { path.appending(index: builder.count) }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Int) { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int8) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: Int16) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: Int32) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: Int64) { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: UInt8) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: UInt16) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: UInt32) { append(.number(NumberBridge.number(value))) }
    mutating func encode(_ value: UInt64) { append(.number(JSONNumber(value))) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func encode(_ value: Int128) { append(.number(NumberBridge.number(value))) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    mutating func encode(_ value: UInt128) { append(.number(NumberBridge.number(value))) }

    mutating func encode(_ value: Double) throws {
        append(try context.number(value, at: { nextPath }))
    }

    mutating func encode(_ value: Float) throws {
        append(try context.number(value, at: { nextPath }))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        append(try context.encodeValue(value, at: { nextPath }, in: frame, key: .index(builder.count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBuilder()
        let nestedPath = nextPath
        builder.append(pending: .object(nested))
        return KeyedEncodingContainer(ObjectEncodingContainer<NestedKey>(
            context: context, builder: nested, path: nestedPath
        ))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBuilder()
        let nestedPath = nextPath
        builder.append(pending: .array(nested))
        return ArrayEncodingContainer(context: context, builder: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(context: context, path: nextPath)
        builder.append(pending: .encoder(encoder))
        return encoder
    }
}
