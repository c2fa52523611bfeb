import Foundation

/// One decoding run: the options every nested decoder shares, and the conversion of single
/// values, which reads the types that have a JSON form of their own straight from the
/// ``JSONValue`` and hands everything else a ``ValueDecoder``.
final class DecodingContext {
    let dateStrategy: JSONValueDecoder.DateDecodingStrategy
    let dataStrategy: JSONValueDecoder.DataDecodingStrategy
    let convertsNonFinite: Bool
    let userInfo: [CodingUserInfoKey: Any]

    init(_ options: JSONValueDecoder) {
        dateStrategy = options.dateDecodingStrategy
        dataStrategy = options.dataDecodingStrategy
        convertsNonFinite = options.nonConformingFloatDecodingStrategy == .convertFromString
        userInfo = options.userInfo
    }

    /// Decodes one value. `path` is only called when the value needs it (a nested decoder or an
    /// error), so the common case builds no path at all.
    func decodeValue<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: () -> CodingPathNode) throws -> T {
        if T.self == String.self { return try string(value, at: path) as! T }
        if T.self == Int.self { return try integer(Int.self, value, at: path) as! T }
        if T.self == Double.self { return try double(value, at: path) as! T }
        if T.self == Bool.self { return try bool(value, at: path) as! T }
        if T.self == JSONValue.self { return value as! T }
        if T.self == Date.self { return try date(value, at: path) as! T }
        if T.self == Data.self { return try data(value, at: path) as! T }
        if T.self == URL.self { return try url(value, at: path) as! T }
        if T.self == Decimal.self { return try decimal(value, at: path) as! T }
        if T.self == Float.self { return try float(value, at: path) as! T }
        if let integer = try integer(ofAnyWidth: T.self, value, at: path) { return integer }
        if let dictionary = T.self as? any RawStringKeyedDecodable.Type, dictionary.decodesFromJSONObject,
           case .object(let object) = value {
            return try dictionary.init(jsonObject: object, context: self, path: path()) as! T
        }
        return try T(from: ValueDecoder(value: value, path: path(), context: self))
    }

    /// The integer types not matched in `decodeValue`, or `nil` when `T` is none of them.
    private func integer<T>(ofAnyWidth type: T.Type, _ value: JSONValue, at path: () -> CodingPathNode) throws -> T? {
        if T.self == Int64.self { return try integer(Int64.self, value, at: path) as? T }
        if T.self == UInt64.self { return try integer(UInt64.self, value, at: path) as? T }
        if T.self == Int32.self { return try integer(Int32.self, value, at: path) as? T }
        if T.self == UInt32.self { return try integer(UInt32.self, value, at: path) as? T }
        if T.self == UInt.self { return try integer(UInt.self, value, at: path) as? T }
        if T.self == Int16.self { return try integer(Int16.self, value, at: path) as? T }
        if T.self == UInt16.self { return try integer(UInt16.self, value, at: path) as? T }
        if T.self == Int8.self { return try integer(Int8.self, value, at: path) as? T }
        if T.self == UInt8.self { return try integer(UInt8.self, value, at: path) as? T }
        if #available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *) {
            if T.self == Int128.self { return try integer(Int128.self, value, at: path) as? T }
            if T.self == UInt128.self { return try integer(UInt128.self, value, at: path) as? T }
        }
        return nil
    }

    // MARK: Primitives

    func bool(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, at: path) }
        return bool
    }

    func string(_ value: JSONValue, at path: () -> CodingPathNode) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, at: path) }
        return string
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, at path: () -> CodingPathNode) throws -> I {
        guard case .number(let number) = value else { throw mismatch(type, value, at: path) }
        if let integer = NumberBridge.integer(number, as: type) { return integer }
        let problem = number.decimal.exponent < 0 ? "is not an integer" : "does not fit in \(type)"
        throw corrupted("Number \(number.text) at \(Self.place(path)) \(problem).", at: path)
    }

    func double(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Double {
        if case .number(let number) = value {
            let double = number.doubleValue
            guard double.isFinite else {
                throw corrupted("Number \(number.text) at \(Self.place(path)) does not fit in Double.", at: path)
            }
            return double
        }
        if let special = nonFinite(value) { return special }
        throw mismatch(Double.self, value, at: path)
    }

    func float(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Float {
        if case .number(let number) = value {
            // Straight from the text: rounding through `Double` first could round twice.
            let float = Float(number.text) ?? Float(number.doubleValue)
            guard float.isFinite else {
                throw corrupted("Number \(number.text) at \(Self.place(path)) does not fit in Float.", at: path)
            }
            return float
        }
        if let special = nonFinite(value) { return Float(special) }
        throw mismatch(Float.self, value, at: path)
    }

    private func nonFinite(_ value: JSONValue) -> Double? {
        guard convertsNonFinite, case .string(let text) = value else { return nil }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return nil
        }
    }

    // MARK: Foundation types

    private func decimal(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Decimal {
        if case .number(let number) = value {
            guard let decimal = Decimal(string: number.text, locale: nil) else {
                throw corrupted("Number \(number.text) at \(Self.place(path)) does not fit in Decimal.", at: path)
            }
            return decimal
        }
        if nonFinite(value)?.isNaN == true { return .nan }
        throw mismatch(Decimal.self, value, at: path)
    }

    private func url(_ value: JSONValue, at path: () -> CodingPathNode) throws -> URL {
        let text = try string(value, at: path)
        guard let url = URL(string: text) else {
            throw corrupted("\"\(text)\" at \(Self.place(path)) is not a valid URL.", at: path)
        }
        return url
    }

    private func date(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Date {
        switch dateStrategy {
        case .secondsSince1970, .millisecondsSince1970:
            guard case .number(let number) = value else { throw mismatch(Date.self, value, at: path) }
            let scale = if case .millisecondsSince1970 = dateStrategy { 3 } else { 0 }
            return UnixTime.date(elapsed: number, scale: scale)
        case .iso8601:
            let text = try string(value, at: path)
            guard let date = ISO8601Timestamp.date(from: text) else {
                throw corrupted("\"\(text)\" at \(Self.place(path)) is not an ISO 8601 date.", at: path)
            }
            return date
        case .deferredToDate:
            return try Date(from: ValueDecoder(value: value, path: path(), context: self))
        case .custom(let decode):
            return try decode(ValueDecoder(value: value, path: path(), context: self))
        }
    }

    private func data(_ value: JSONValue, at path: () -> CodingPathNode) throws -> Data {
        switch dataStrategy {
        case .base64:
            let text = try string(value, at: path)
            guard let data = Data(base64Encoded: text) else {
                throw corrupted("The string at \(Self.place(path)) is not valid Base64.", at: path)
            }
            return data
        case .deferredToData:
            return try Data(from: ValueDecoder(value: value, path: path(), context: self))
        case .custom(let decode):
            return try decode(ValueDecoder(value: value, path: path(), context: self))
        }
    }

    // MARK: Errors

    /// `valueNotFound` for a `null`, `typeMismatch` for anything else.
    func mismatch(_ type: Any.Type, _ value: JSONValue, at path: () -> CodingPathNode) -> DecodingError {
        let keys = path().keys
        let place = Self.place(keys)
        if value.isNull {
            return .valueNotFound(type, .init(codingPath: keys, debugDescription: "Expected \(type) at \(place) but found null."))
        }
        return .typeMismatch(type, .init(
            codingPath: keys, debugDescription: "Expected \(type) at \(place) but found \(Self.article(value.typeName))."
        ))
    }

    func corrupted(_ message: String, at path: () -> CodingPathNode) -> DecodingError {
        .dataCorrupted(.init(codingPath: path().keys, debugDescription: message))
    }

    /// How error messages name a place: its JSON Pointer in quotes, or "the top level".
    static func place(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the top level" : "\"\(keys.jsonPointer)\""
    }

    static func place(_ path: () -> CodingPathNode) -> String { place(path().keys) }

    private static func article(_ typeName: String) -> String {
        (typeName == "array" || typeName == "object" ? "an " : "a ") + typeName
    }
}
