import Foundation

/// Decodes any `Decodable` straight from a ``JSONValue``, with no bytes in between.
///
/// Integers are read exactly: decoding a number that is not an integer, or that the type cannot
/// hold, throws rather than rounds (`2.0` and `2e0` are integers; `2.5` and `300` as `UInt8`
/// are not). Floating-point types accept any number within their range. Every error is a
/// `DecodingError` whose coding path names the failing value; ``Swift/DecodingError/jsonPointer``
/// renders it as a JSON Pointer.
///
/// ```swift
/// struct Todo: Codable { var title: String; var done: Bool }
/// let todo = try JSONValueDecoder().decode(Todo.self, from: ["title": "Ship", "done": false])
/// ```
///
/// The decoder reads what ``JSONValueEncoder`` writes with the same strategies: a `URL` from a
/// string, a `Decimal` from a number, and a dictionary keyed by `String`-backed
/// `RawRepresentable` values from an object (or from the flat `[key, value, …]` array that
/// Foundation's coders write for such dictionaries).
public struct JSONValueDecoder: Sendable {
    /// How a `Date` is read.
    public enum DateDecodingStrategy: Sendable {
        /// A number of seconds since 1970-01-01T00:00:00Z, computed exactly and rounded once to
        /// the nearest `Date`. The default.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z, computed exactly.
        case millisecondsSince1970
        /// An ISO 8601 string, `2024-05-01T12:30:00Z`: any number of fractional digits, and `Z`
        /// or an offset such as `+02:00`.
        case iso8601
        /// Whatever `Date.init(from:)` does: a `Double` of seconds since 2001-01-01.
        case deferredToDate
        /// Calls the closure to decode the date from the given decoder.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` is read.
    public enum DataDecodingStrategy: Sendable {
        /// A Base64 string (RFC 4648). The default.
        case base64
        /// Whatever `Data.init(from:)` does: an array of byte values.
        case deferredToData
        /// Calls the closure to decode the data from the given decoder.
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    /// Whether NaN and the infinities may be read from strings.
    public enum NonConformingFloatDecodingStrategy: Sendable, Equatable {
        /// A floating-point value must be a JSON number. The default.
        case `throw`
        /// The strings `"NaN"`, `"Infinity"` and `"-Infinity"` are read as those values, as
        /// ``JSONValueEncoder/NonConformingFloatEncodingStrategy/convertToString`` writes them.
        case convertFromString
    }

    /// How dates are read; ``DateDecodingStrategy/secondsSince1970`` by default.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// How data is read; ``DataDecodingStrategy/base64`` by default.
    public var dataDecodingStrategy: DataDecodingStrategy
    /// Whether NaN and the infinities may come from strings; ``NonConformingFloatDecodingStrategy/throw``
    /// by default.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy
    /// Values handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// A decoder with the given strategies.
    public init(
        dateDecodingStrategy: DateDecodingStrategy = .secondsSince1970,
        dataDecodingStrategy: DataDecodingStrategy = .base64,
        nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
        self.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        self.userInfo = userInfo
    }

    /// Decodes a value of `type` from `value`.
    ///
    /// - Throws: `DecodingError` when `value` does not have the shape `type` expects: a type
    ///   mismatch, a missing key, a `null` where a value is required, or a number out of range.
    ///   The error's coding path names the failing value.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from value: JSONValue) throws -> T {
        try DecodingContext(self).decodeValue(type, from: value, at: { .root })
    }
}
