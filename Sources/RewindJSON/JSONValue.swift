/// A JSON document or fragment.
///
/// Objects keep their keys in the order they were read or inserted; numbers keep the exact text
/// they were read from (see ``JSONNumber``). Equality is JSON equality: objects compare as
/// unordered maps, numbers compare numerically, and strings and keys compare scalar by scalar
/// (not by Swift's canonical equivalence), so `{"a":1.0,"b":2} == {"b":2,"a":1}` while
/// `"\u00e9" != "e\u0301"`.
///
/// ```swift
/// let state: JSONValue = ["user": ["name": "Ada", "age": 36], "tags": ["a", "b"]]
/// state["user"]?["name"]   // "Ada"
/// ```
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The JSON type name of this value: `null`, `boolean`, `number`, `string`, `array` or `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// `true` when this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, when this value is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number, when this value is one.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The string, when this value is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The elements, when this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, when this value is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The member named `key` when this value is an object that has it, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element at `index` when this value is an array that long, else `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

// MARK: - Equality and hashing

extension JSONValue: Equatable {
    /// JSON equality: see ``JSONValue``.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.hasSameBytes(as: b)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            return a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    for i in 0..<pa.count where pa[i] != pb[i] { return false }
                    return true
                }
            }
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension JSONValue: Hashable {
    /// Hashes consistently with `==`: object member order and number spelling do not matter.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let b): hasher.combine(1 as UInt8); hasher.combine(b)
        case .number(let n): hasher.combine(2 as UInt8); hasher.combine(n)
        case .string(let s): hasher.combine(3 as UInt8); hasher.combine(s)
        case .array(let a):
            hasher.combine(4 as UInt8)
            hasher.combine(a.count)
            for element in a { hasher.combine(element) }
        case .object(let o): hasher.combine(5 as UInt8); hasher.combine(o)
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number, printed as Swift's shortest round-tripping text.
    public init(floatLiteral value: Double) {
        // A float literal is always finite.
        self = .number(JSONNumber(value)!)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object with these members in this order (a repeated key keeps its last value).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
