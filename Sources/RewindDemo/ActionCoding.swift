/// The keys of a demo action's JSON object: `type` names the action (`images/appear`), the rest
/// are its values. Every demo action encodes as one such object.
struct ActionKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static let type = ActionKey("type")
}

extension KeyedDecodingContainer where K == ActionKey {
    /// A value of the action's object.
    func value<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T {
        try decode(T.self, forKey: ActionKey(key))
    }

    /// The error for a `type` this action does not know.
    func unknownType(_ name: String, expected: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: .type, in: self,
                                         debugDescription: "unknown action type \"\(name)\" (expected \(expected))")
    }
}

extension KeyedEncodingContainer where K == ActionKey {
    /// Writes the action's `type`.
    mutating func type(_ name: String) throws {
        try encode(name, forKey: .type)
    }

    /// Writes one value of the action's object.
    mutating func value<T: Encodable>(_ key: String, _ value: T) throws {
        try encode(value, forKey: ActionKey(key))
    }
}
