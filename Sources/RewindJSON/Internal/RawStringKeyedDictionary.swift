/// Dictionaries keyed by a `String`-backed `RawRepresentable` (typically an enum).
///
/// The standard library writes such a dictionary as a flat array `[key, value, key, value]`
/// unless its key type also adopts `CodingKeyRepresentable`; state stores key dictionaries by
/// enums all the time, and an object reads and diffs far better. When the key type does adopt
/// `CodingKeyRepresentable` the standard library already makes an object and is left to it.
protocol RawStringKeyedEncodable {
    /// `false` when the standard library's own encoding already makes an object.
    var encodesAsJSONObject: Bool { get }
    func encodeAsJSONObject(_ context: EncodingContext, at path: CodingPathNode, frame: MemoFrame?) throws -> JSONValue
}

/// The decoding side of ``RawStringKeyedEncodable``.
protocol RawStringKeyedDecodable {
    /// `false` when the standard library's own decoding already reads an object.
    static var decodesFromJSONObject: Bool { get }
    init(jsonObject: JSONObject, context: DecodingContext, path: CodingPathNode) throws
}

extension Dictionary: RawStringKeyedEncodable where Key: RawRepresentable, Key.RawValue == String, Value: Encodable {
    var encodesAsJSONObject: Bool { !(Key.self is any CodingKeyRepresentable.Type) }

    func encodeAsJSONObject(_ context: EncodingContext, at path: CodingPathNode, frame: MemoFrame?) throws -> JSONValue {
        var object = JSONObject()
        for (key, value) in self {
            let name = key.rawValue
            object[name] = try context.encodeValue(value, at: { path.appending(JSONCodingKey(stringValue: name)) },
                                                   in: frame, key: .name(name))
        }
        return .object(object)
    }
}

extension Dictionary: RawStringKeyedDecodable where Key: RawRepresentable, Key.RawValue == String, Value: Decodable {
    static var decodesFromJSONObject: Bool { !(Key.self is any CodingKeyRepresentable.Type) }

    init(jsonObject: JSONObject, context: DecodingContext, path: CodingPathNode) throws {
        self.init(minimumCapacity: jsonObject.count)
        for (name, value) in jsonObject {
            let keyPath = { path.appending(JSONCodingKey(stringValue: name)) }
            guard let key = Key(rawValue: name) else {
                throw context.corrupted(
                    "\"\(name)\" at \(DecodingContext.place(keyPath)) is not a valid \(Key.self).", at: keyPath
                )
            }
            self[key] = try context.decodeValue(Value.self, from: value, at: keyPath)
        }
    }
}
