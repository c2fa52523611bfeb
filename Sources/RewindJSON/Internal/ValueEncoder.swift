import Foundation

/// What an encoder or container has produced so far. Nested containers and super encoders are
/// filled after they are handed out, so they stay references until the enclosing value finishes.
enum EncodingNode {
    case value(JSONValue)
    case object(ObjectBuilder)
    case array(ArrayBuilder)
    case encoder(ValueEncoder)

    func finish() -> JSONValue {
        switch self {
        case .value(let value): value
        case .object(let builder): builder.finish()
        case .array(let builder): builder.finish()
        case .encoder(let encoder): encoder.finish()
        }
    }
}

/// The members of an object being encoded, in encoding order.
final class ObjectBuilder {
    private var object = JSONObject()
    /// Members whose value is still being built: a placeholder holds their place in `object`.
    private var pending: [(key: String, node: EncodingNode)] = []
    /// The value is a state of TCA's `@ObservableState` (it encoded the macro's registrar): its
    /// members are written under the app's own names (``ObservableStateKeys``).
    private var observable = false

    /// Marks the object as an `@ObservableState` state (its registrar is not written).
    func markObservable() { observable = true }

    /// Sets a finished value; encoding a key again replaces its value and keeps its place.
    func set(_ value: JSONValue, forKey key: String) {
        if !pending.isEmpty { pending.removeAll { $0.key == key } }
        object.updateValue(value, forKey: key)
    }

    func set(pending node: EncodingNode, forKey key: String) {
        set(.null, forKey: key)
        pending.append((key, node))
    }

    func finish() -> JSONValue {
        if !pending.isEmpty {
            // Take the object out so that filling in the pending members does not copy it.
            var finished = JSONObject()
            swap(&finished, &object)
            for (key, node) in pending { finished.updateValue(node.finish(), forKey: key) }
            pending = []
            object = finished
        }
        if observable {
            object = ObservableStateKeys.ownNames(object)
            observable = false
        }
        return .object(object)
    }
}

/// TCA's `@ObservableState` macro stores each property of a state as `_name`, behind a computed
/// `name`, and adds `_$observationRegistrar` (which encodes nothing): a synthesized `Codable`
/// writes those stored names. Rewind's encoder writes such a state (one that encodes the
/// registrar) under the app's own names, without the registrar, and its decoder reads `_name`
/// from `name` and the registrar from nothing, for the coding keys of a type that has the
/// registrar among them: what a recording shows, and what a jump sends back, read as the app's
/// names. A member that already has its own name is left as it is.
enum ObservableStateKeys {
    static let registrar = "_$observationRegistrar"

    static func ownNames(_ object: JSONObject) -> JSONObject {
        var renamed = JSONObject()
        for (key, value) in object {
            if key.utf8.count > 1, key.utf8.first == UInt8(ascii: "_") {
                let own = String(key.dropFirst())
                if object.index(forKey: own) == nil {
                    renamed.updateValue(value, forKey: own)
                    continue
                }
            }
            renamed.updateValue(value, forKey: key)
        }
        return renamed
    }
}

/// The elements of an array being encoded.
final class ArrayBuilder {
    private var elements: [JSONValue] = []
    /// Elements whose value is still being built: a placeholder holds their place in `elements`.
    private var pending: [(index: Int, node: EncodingNode)] = []

    var count: Int { elements.count }

    func append(_ value: JSONValue) { elements.append(value) }

    func append(pending node: EncodingNode) {
        pending.append((elements.count, node))
        elements.append(.null)
    }

    func finish() -> JSONValue {
        guard !pending.isEmpty else { return .array(elements) }
        var finished: [JSONValue] = []
        swap(&finished, &elements)
        for (index, node) in pending { finished[index] = node.finish() }
        pending = []
        elements = finished
        return .array(finished)
    }
}

/// The `Encoder` handed to `encode(to:)`; it is also its own single-value container.
///
/// Asking again for the kind of container already in use returns the same one, as Foundation
/// does. Asking for a different kind replaces what was there: the last container wins, rather
/// than trapping inside the app being recorded.
final class ValueEncoder: Encoder {
    let context: EncodingContext
    let path: CodingPathNode
    /// Where the values this encoder is given are remembered; `nil` unless the context memoizes
    /// and this encoder stands for a whole value (not a nested or super encoder).
    let frame: MemoFrame?
    private var storage: EncodingNode?

    init(context: EncodingContext, path: CodingPathNode, frame: MemoFrame? = nil) {
        self.context = context
        self.path = path
        self.frame = frame
    }

    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    /// The encoded value; an encoder that was given nothing gives an empty object, so an empty
    /// `Codable` struct round-trips.
    func finish() -> JSONValue {
        storage?.finish() ?? .object(JSONObject())
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let builder: ObjectBuilder
        if case .object(let existing) = storage {
            builder = existing
        } else {
            builder = ObjectBuilder()
            storage = .object(builder)
        }
        return KeyedEncodingContainer(ObjectEncodingContainer(context: context, builder: builder, path: path, frame: frame))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let builder: ArrayBuilder
        if case .array(let existing) = storage {
            builder = existing
        } else {
            builder = ArrayBuilder()
            storage = .array(builder)
        }
        return ArrayEncodingContainer(context: context, builder: builder, path: path, frame: frame)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Stores the value of this encoder directly: how ``JSONValue`` inserts itself as it is.
    func store(_ value: JSONValue) { storage = .value(value) }
}

extension ValueEncoder: SingleValueEncodingContainer {
    func encodeNil() { storage = .value(.null) }
    func encode(_ value: Bool) { storage = .value(.bool(value)) }
    func encode(_ value: String) { storage = .value(.string(value)) }
    func encode(_ value: Double) throws { storage = .value(try context.number(value, at: { path })) }
    func encode(_ value: Float) throws { storage = .value(try context.number(value, at: { path })) }
    func encode(_ value: Int) { storage = .value(.number(JSONNumber(value))) }
    func encode(_ value: Int8) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: Int16) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: Int32) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: Int64) { storage = .value(.number(JSONNumber(value))) }
    func encode(_ value: UInt) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: UInt8) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: UInt16) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: UInt32) { storage = .value(.number(NumberBridge.number(value))) }
    func encode(_ value: UInt64) { storage = .value(.number(JSONNumber(value))) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func encode(_ value: Int128) { storage = .value(.number(NumberBridge.number(value))) }

    @available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
    func encode(_ value: UInt128) { storage = .value(.number(NumberBridge.number(value))) }

    func encode<T: Encodable>(_ value: T) throws {
        storage = .value(try context.encodeValue(value, at: { path }, in: frame, key: .single))
    }
}
