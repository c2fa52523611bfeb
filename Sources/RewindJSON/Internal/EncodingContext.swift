import Foundation

/// One encoding run: the options every nested encoder shares, the non-finite numbers it replaced,
/// and the conversion of single values, which goes straight to a ``JSONValue`` for the types
/// that have a JSON form of their own and through a ``ValueEncoder`` for everything else.
final class EncodingContext {
    let dateStrategy: JSONValueEncoder.DateEncodingStrategy
    let dataStrategy: JSONValueEncoder.DataEncodingStrategy
    let convertsNonFinite: Bool
    let reportsNonFinite: Bool
    /// Where values are remembered for reuse, if they are (see ``JSONValueEncoder/Memo``).
    private let memo: JSONValueEncoder.Memo?
    /// Set while encoding a value when something inside it may not be reused.
    private var sawUnreusable = false
    let userInfo: [CodingUserInfoKey: Any]
    /// Filled only when `reportsNonFinite`.
    private(set) var nonFinitePointers: [String] = []

    init(_ options: JSONValueEncoder, reportsNonFinite: Bool, memo: JSONValueEncoder.Memo? = nil) {
        self.memo = memo
        dateStrategy = options.dateEncodingStrategy
        dataStrategy = options.dataEncodingStrategy
        convertsNonFinite = reportsNonFinite || options.nonConformingFloatEncodingStrategy == .convertToString
        self.reportsNonFinite = reportsNonFinite
        userInfo = options.userInfo
    }

    func encodeTopLevel<T: Encodable>(_ value: T) throws -> JSONValue {
        try encodeValue(value, at: { .root })
    }

    /// Encodes one value. `path` is only called when the value needs it (a nested encoder, an
    /// error, a report), so the common case builds no path at all. `frame` is the parent the
    /// value is remembered under, when the context memoizes; `key` is where in it.
    func encodeValue<T: Encodable>(_ value: T, at path: () -> CodingPathNode,
                                   in frame: MemoFrame? = nil, key: MemoKey = .single) throws -> JSONValue {
        if let scalar = try encodeScalar(value, at: path) { return scalar }
        if memo != nil {
            return try withUnsafePointer(to: value) { try encodeRemembering($0, at: path, in: frame, key: key) }
        }
        return try encodeComposite(value, at: path(), frame: nil)
    }

    /// One element of an array whose buffer is read in place, so that an unchanged element is
    /// compared without being copied (see ``MemoizableArray``).
    func encodeElement<E: Encodable>(_ element: UnsafePointer<E>, index: Int, of path: CodingPathNode,
                                     in frame: MemoFrame) throws -> JSONValue {
        if let scalar = try encodeScalar(element.pointee, at: { path.appending(index: index) }) { return scalar }
        return try encodeRemembering(element, at: { path.appending(index: index) }, in: frame, key: .index(index))
    }

    /// The value's JSON form when it is a scalar of a type the encoder knows; `nil` otherwise.
    private func encodeScalar<T: Encodable>(_ value: T, at path: () -> CodingPathNode) throws -> JSONValue? {
        // Standard library types first: `[Int]` and friends hand every element to this generic
        // entry point. Comparing metatypes is a pointer comparison.
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .number(JSONNumber(value as! Int)) }
        if T.self == Double.self { return try number(value as! Double, at: path) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == JSONValue.self { return value as? JSONValue }
        if T.self == Date.self { return try encodeDate(value as! Date, at: path) }
        if T.self == Data.self { return try encodeData(value as! Data, at: path) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return try encodeDecimal(value as! Decimal, at: path) }
        if T.self == Float.self { return try number(value as! Float, at: path) }
        if let integer = Self.integer(value) { return .number(integer) }
        return nil
    }

    /// A value that is not a scalar, through its own `encode(to:)` or as a JSON object.
    private func encodeComposite<T: Encodable>(_ value: T, at path: CodingPathNode, frame: MemoFrame?) throws -> JSONValue {
        if T.self is any RawStringKeyedEncodable.Type, let dictionary = value as? any RawStringKeyedEncodable,
           dictionary.encodesAsJSONObject {
            return try dictionary.encodeAsJSONObject(self, at: path, frame: frame)
        }
        return try encodeWithEncoder(value, at: path, frame: frame)
    }

    /// Reuses the previous run's encoding when the value at this place has the same bits, and
    /// otherwise encodes it and remembers it (its children are looked up under the previous
    /// node all the same, so an unchanged element of a changed array is still reused).
    private func encodeRemembering<T: Encodable>(_ value: UnsafePointer<T>, at path: () -> CodingPathNode,
                                                 in frame: MemoFrame?, key: MemoKey) throws -> JSONValue {
        guard let memo else { return try encodeComposite(value.pointee, at: path(), frame: nil) }
        let previous = frame?.previousChild(key)
        if let previous, previous.reusable, previous.type == ObjectIdentifier(T.self),
           unsafeDowncast(previous, to: TypedMemoNode<T>.self).hasSameBits(as: value) {
            frame?.node.children.append((key, previous))
            return previous.encoded
        }
        let layout = memo.layout(of: T.self)
        // A value holding a collection keeps no copy (see ``ValueLayout``), only its children.
        let node = layout.isRememberable ? TypedMemoNode(value.pointee, layout: layout) : MemoNode(type: ObjectIdentifier(T.self))
        let outer = sawUnreusable
        let reportedBefore = nonFinitePointers.count
        // A class instance (or a pointer) can change behind unchanged bytes: nothing holding
        // one is reused, at any depth.
        sawUnreusable = layout.holdsReference
        defer { sawUnreusable = outer || sawUnreusable }
        let nodeFrame = MemoFrame(previous: previous, node: node)
        let encoded = if let array = T.self as? any MemoizableArray.Type {
            try array.encodeElements(at: UnsafeRawPointer(value), context: self, path: path(), frame: nodeFrame)
        } else {
            try encodeComposite(value.pointee, at: path(), frame: nodeFrame)
        }
        if nonFinitePointers.count != reportedBefore { sawUnreusable = true }
        node.encoded = encoded
        node.reusable = !sawUnreusable && layout.isRememberable
        frame?.node.children.append((key, node))
        return encoded
    }

    /// The integer types not matched above, exactly.
    private static func integer<T>(_ value: T) -> JSONNumber? {
        if T.self == Int64.self { return JSONNumber(value as! Int64) }
        if T.self == UInt64.self { return JSONNumber(value as! UInt64) }
        if T.self == Int32.self { return JSONNumber(Int64(value as! Int32)) }
        if T.self == UInt32.self { return JSONNumber(Int64(value as! UInt32)) }
        if T.self == UInt.self { return JSONNumber(UInt64(value as! UInt)) }
        if T.self == Int16.self { return JSONNumber(Int64(value as! Int16)) }
        if T.self == UInt16.self { return JSONNumber(Int64(value as! UInt16)) }
        if T.self == Int8.self { return JSONNumber(Int64(value as! Int8)) }
        if T.self == UInt8.self { return JSONNumber(Int64(value as! UInt8)) }
        if #available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *) {
            if T.self == Int128.self { return NumberBridge.number(value as! Int128) }
            if T.self == UInt128.self { return NumberBridge.number(value as! UInt128) }
        }
        return nil
    }

    /// Runs the value's own `encode(to:)`.
    func encodeWithEncoder<T: Encodable>(_ value: T, at path: CodingPathNode, frame: MemoFrame? = nil) throws -> JSONValue {
        let encoder = ValueEncoder(context: self, path: path, frame: frame)
        try value.encode(to: encoder)
        return encoder.finish()
    }

    // MARK: Numbers

    func number(_ value: Double, at path: () -> CodingPathNode) throws -> JSONValue {
        if let number = JSONNumber(value) { return .number(number) }
        return try nonFinite(value, isNaN: value.isNaN, isNegative: value < 0, at: path)
    }

    func number(_ value: Float, at path: () -> CodingPathNode) throws -> JSONValue {
        if value.isFinite { return .number(NumberBridge.number(value)) }
        return try nonFinite(value, isNaN: value.isNaN, isNegative: value < 0, at: path)
    }

    private func nonFinite(_ value: Any, isNaN: Bool, isNegative: Bool, at path: () -> CodingPathNode) throws -> JSONValue {
        let text = isNaN ? "NaN" : isNegative ? "-Infinity" : "Infinity"
        guard convertsNonFinite else {
            let keys = path().keys
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: keys,
                debugDescription: "\(text) at \"\(keys.jsonPointer)\" is not a JSON number; "
                    + "set nonConformingFloatEncodingStrategy to .convertToString to write it as a string."
            ))
        }
        if reportsNonFinite { nonFinitePointers.append(path().keys.jsonPointer) }
        return .string(text)
    }

    private func encodeDecimal(_ value: Decimal, at path: () -> CodingPathNode) throws -> JSONValue {
        if value.isNaN { return try nonFinite(value, isNaN: true, isNegative: false, at: path) }
        if let number = JSONNumber(text: value.description) { return .number(number) }
        return try number(NSDecimalNumber(decimal: value).doubleValue, at: path)
    }

    // MARK: Dates and data

    private func encodeDate(_ date: Date, at path: () -> CodingPathNode) throws -> JSONValue {
        switch dateStrategy {
        case .secondsSince1970, .millisecondsSince1970:
            let scale = if case .millisecondsSince1970 = dateStrategy { 3 } else { 0 }
            guard let elapsed = UnixTime.elapsed(to: date, scale: scale),
                  let number = JSONNumber(text: elapsed.plainText) else {
                throw invalidDate(date, "is not finite", at: path)
            }
            return .number(number)
        case .iso8601:
            guard let text = ISO8601Timestamp.string(for: date) else {
                throw invalidDate(date, "falls outside the years 0000–9999 that ISO 8601 strings hold", at: path)
            }
            return .string(text)
        case .deferredToDate:
            return try encodeWithEncoder(date, at: path())
        case .custom(let encode):
            let encoder = ValueEncoder(context: self, path: path())
            try encode(date, encoder)
            return encoder.finish()
        }
    }

    private func invalidDate(_ date: Date, _ problem: String, at path: () -> CodingPathNode) -> EncodingError {
        let keys = path().keys
        return EncodingError.invalidValue(date, EncodingError.Context(
            codingPath: keys,
            debugDescription: "The date at \"\(keys.jsonPointer)\" \(problem)."
        ))
    }

    private func encodeData(_ data: Data, at path: () -> CodingPathNode) throws -> JSONValue {
        switch dataStrategy {
        case .base64:
            return .string(data.base64EncodedString())
        case .deferredToData:
            return try encodeWithEncoder(data, at: path())
        case .custom(let encode):
            let encoder = ValueEncoder(context: self, path: path())
            try encode(data, encoder)
            return encoder.finish()
        }
    }
}
