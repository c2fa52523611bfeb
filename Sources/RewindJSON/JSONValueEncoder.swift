import Foundation

/// Encodes any `Encodable` straight into a ``JSONValue``, with no bytes in between.
///
/// Object keys come out in the order the value encodes them (for synthesised `Codable`, the
/// order of the stored properties). Integers of every width are exact, `UInt64.max` and
/// `Int64.min` included; a `Double` becomes the shortest number that reads back as the same
/// `Double`. A ``JSONValue`` inside the value is inserted as it is.
///
/// ```swift
/// struct Todo: Codable { var title: String; var done: Bool }
/// let value = try JSONValueEncoder().encode(Todo(title: "Ship", done: false))
/// value.serialized()   // {"title":"Ship","done":false}
/// ```
///
/// Beyond what the standard library types would do by themselves, the encoder (like Foundation's
/// `JSONEncoder`) writes a `URL` as its `absoluteString`, a `Decimal` as a number, and applies
/// the date and data strategies below. It also writes a dictionary whose keys are
/// `RawRepresentable` with `String` raw values as an object keyed by those raw values.
public struct JSONValueEncoder: Sendable {
    /// How a `Date` is written.
    public enum DateEncodingStrategy: Sendable {
        /// A number of seconds since 1970-01-01T00:00:00Z, exactly: the decimal text reads back
        /// as the very same `Date`, sub-microsecond bits included. The default.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z, exactly (it may have a fraction).
        case millisecondsSince1970
        /// An ISO 8601 string in UTC, `2024-05-01T12:30:00Z`, with as many fractional digits as
        /// the date needs to read back exactly (none for whole seconds). Dates outside the years
        /// 0000–9999 are an error.
        case iso8601
        /// Whatever `Date.encode(to:)` does: a `Double` of seconds since 2001-01-01.
        case deferredToDate
        /// Calls the closure to encode the date through the given encoder.
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` is written.
    public enum DataEncodingStrategy: Sendable {
        /// A Base64 string (RFC 4648, with padding). The default.
        case base64
        /// Whatever `Data.encode(to:)` does: an array of byte values.
        case deferredToData
        /// Calls the closure to encode the data through the given encoder.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// What to do with NaN and the infinities, which JSON numbers cannot hold.
    public enum NonConformingFloatEncodingStrategy: Sendable, Equatable {
        /// Throw an `EncodingError.invalidValue` whose coding path names the value. The default.
        case `throw`
        /// Write the strings `"NaN"`, `"Infinity"` and `"-Infinity"`.
        case convertToString
    }

    /// An encoded value together with the places where a non-finite number was replaced by a
    /// string (see ``JSONValueEncoder/encodeReportingNonFinite(_:)``).
    public struct EncodedValue: Sendable, Equatable {
        /// The encoded value.
        public var value: JSONValue
        /// The JSON Pointers of the numbers written as `"NaN"`, `"Infinity"` or `"-Infinity"`,
        /// in encoding order; empty when every number was finite.
        public var nonFinitePointers: [String]

        /// An encoded value and the pointers of its replaced numbers.
        public init(value: JSONValue, nonFinitePointers: [String]) {
            self.value = value
            self.nonFinitePointers = nonFinitePointers
        }
    }

    /// How dates are written; ``DateEncodingStrategy/secondsSince1970`` by default.
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How data is written; ``DataEncodingStrategy/base64`` by default.
    public var dataEncodingStrategy: DataEncodingStrategy
    /// What NaN and the infinities become; ``NonConformingFloatEncodingStrategy/throw`` by default.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy
    /// Values handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder with the given strategies.
    public init(
        dateEncodingStrategy: DateEncodingStrategy = .secondsSince1970,
        dataEncodingStrategy: DataEncodingStrategy = .base64,
        nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateEncodingStrategy = dateEncodingStrategy
        self.dataEncodingStrategy = dataEncodingStrategy
        self.nonConformingFloatEncodingStrategy = nonConformingFloatEncodingStrategy
        self.userInfo = userInfo
    }

    /// Encodes `value` as a JSON value.
    ///
    /// - Throws: `EncodingError.invalidValue` for a value JSON cannot hold (a non-finite number
    ///   under the `.throw` strategy, a date outside the ISO 8601 years); its coding path, as
    ///   ``Swift/Array/jsonPointer``, names where.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let context = EncodingContext(self, reportsNonFinite: false)
        return try context.encodeTopLevel(value)
    }

    /// Encodes `value`, writing any NaN or infinity as a string whatever
    /// ``nonConformingFloatEncodingStrategy`` says, and reports where that happened.
    ///
    /// This is how a recorder keeps a state that JSON cannot hold exactly and still flags it:
    ///
    /// ```swift
    /// let encoded = try JSONValueEncoder().encodeReportingNonFinite(state)
    /// encoded.value              // {"ratio":"NaN","count":3}
    /// encoded.nonFinitePointers  // ["/ratio"]
    /// ```
    public func encodeReportingNonFinite<T: Encodable>(_ value: T) throws -> EncodedValue {
        let context = EncodingContext(self, reportsNonFinite: true)
        let encoded = try context.encodeTopLevel(value)
        return EncodedValue(value: encoded, nonFinitePointers: context.nonFinitePointers)
    }

    /// What one encoding leaves for the next, so that an encoder called again and again on
    /// successive versions of one value (a recorder's states) skips the parts that did not change.
    ///
    /// It keeps, for every value that is not a scalar, a copy of the value and what it encoded to.
    /// The next run compares each value with the copy kept at the same place, bit for bit, and
    /// reuses the encoding when they match; the reused encoding shares its storage with the
    /// previous result, so a diff of the two skips it too. This relies on the value having value
    /// semantics. Values are compared without their padding, and a type that stores a class
    /// instance, a pointer or an existential is encoded afresh every time (see `ValueLayout`);
    /// what such a value's custom `encode(to:)` reads through a global, or an enum payload's
    /// class instance the encoder is never handed, is not noticed. Use one memo per sequence of
    /// values, from one thread at a time.
    package final class Memo {
        var root: MemoNode?
        private var layouts: [ObjectIdentifier: ValueLayout] = [:]

        package init() {}

        func layout<Value>(of type: Value.Type) -> ValueLayout {
            if let known = layouts[ObjectIdentifier(type)] { return known }
            let layout = ValueLayout.of(type)
            layouts[ObjectIdentifier(type)] = layout
            return layout
        }
    }

    /// ``encodeReportingNonFinite(_:)``, reusing what the previous call with the same memo
    /// encoded wherever the value is unchanged. The result equals what the plain call returns.
    package func encodeReportingNonFinite<T: Encodable>(_ value: T, reusing memo: Memo) throws -> EncodedValue {
        let context = EncodingContext(self, reportsNonFinite: true, memo: memo)
        let root = MemoNode(type: ObjectIdentifier(Memo.self))
        let encoded = try context.encodeValue(value, at: { .root }, in: MemoFrame(previous: memo.root, node: root), key: .single)
        memo.root = root
        return EncodedValue(value: encoded, nonFinitePointers: context.nonFinitePointers)
    }
}
