/// The members of a JSON object, in the order they were read or inserted.
///
/// Lookup by key is a linear scan for small objects and a hash lookup once an object grows past
/// a few dozen members. Assigning to an existing key keeps its position; a new key goes last.
/// Two objects are equal when they hold the same keys with equal values, in any order.
///
/// ```swift
/// var user: JSONObject = ["name": "Ada"]
/// user["age"] = 36          // appended
/// user["name"] = nil        // removed
/// ```
public struct JSONObject: Sendable {
    @usableFromInline var _keys: [String]
    @usableFromInline var _values: [JSONValue]
    /// Key → position, present only for objects larger than `indexThreshold`.
    @usableFromInline var _index: KeyIndex?

    @usableFromInline static var indexThreshold: Int { 24 }

    /// An empty object.
    public init() {
        _keys = []
        _values = []
        _index = nil
    }

    /// An object with these members in this order; a repeated key keeps its first position and
    /// its last value, as RFC 8259 parsers commonly do.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// Builds an object from parallel arrays of unique keys and values without checking for
    /// duplicates; the caller guarantees uniqueness.
    package init(uniqueKeys keys: [String], values: [JSONValue]) {
        precondition(keys.count == values.count)
        _keys = keys
        _values = values
        _index = nil
        if keys.count > Self.indexThreshold { rebuildIndex() }
    }

    /// Adopts keys already known to be unique, with their index when the object is large.
    init(checkedKeys keys: [String], values: [JSONValue], index: KeyIndex?) {
        _keys = keys
        _values = values
        _index = index
    }

    @usableFromInline mutating func rebuildIndex() {
        if _keys.count > Self.indexThreshold {
            _index = KeyIndex(keys: _keys)
        } else {
            _index = nil
        }
    }

    /// The number of members.
    public var count: Int { _keys.count }

    /// `true` when the object has no members.
    public var isEmpty: Bool { _keys.isEmpty }

    /// The keys, in order.
    public var keys: [String] { _keys }

    /// The values, in the order of their keys.
    public var values: [JSONValue] { _values }

    /// The position of `key`, or `nil` when the object does not have it.
    @inlinable
    public func index(forKey key: String) -> Int? {
        if let index = _index { return index.position(of: key, in: _keys) }
        return _keys.withUnsafeBufferPointer { keys in
            for i in 0..<keys.count where keys[i].hasSameBytes(as: key) { return i }
            return nil
        }
    }

    /// The value for `key`; assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = index(forKey: key) else { return nil }
            return _values[i]
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets `value` for `key`, keeping the key's position when it exists, appending it otherwise.
    /// Returns the value it replaced.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let i = index(forKey: key) {
            let old = _values[i]
            _values[i] = value
            return old
        }
        insert(value, forKey: key, at: _keys.count)
        return nil
    }

    /// Inserts a new member at `position`. The key must not be present.
    public mutating func insert(_ value: JSONValue, forKey key: String, at position: Int) {
        precondition(index(forKey: key) == nil, "key already present")
        _keys.insert(key, at: position)
        _values.insert(value, at: position)
        if position == _keys.count - 1, _index != nil {
            _index!.appendLast(of: _keys)
        } else {
            rebuildIndex()
        }
    }

    /// Removes the member named `key` and returns its value, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = index(forKey: key) else { return nil }
        _keys.remove(at: i)
        let old = _values.remove(at: i)
        rebuildIndex()
        return old
    }

    /// The members with their keys sorted by UTF-8 bytes (the canonical order).
    public var sortedByKey: [(key: String, value: JSONValue)] {
        zip(_keys, _values)
            .map { (key: $0.0, value: $0.1) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}

extension JSONObject: RandomAccessCollection {
    /// A member: its key and its value.
    public typealias Element = (key: String, value: JSONValue)
    /// Members are indexed by position.
    public typealias Index = Int
    /// The position of the first member.
    public var startIndex: Int { 0 }
    /// One past the position of the last member.
    public var endIndex: Int { _keys.count }
    /// The member at `position`.
    public subscript(position: Int) -> (key: String, value: JSONValue) {
        (key: _keys[position], value: _values[position])
    }
}

extension JSONObject: Equatable {
    /// The same keys (compared scalar by scalar) with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Same order is the common case: compare positionally first, fall back to lookups.
        for i in 0..<lhs.count {
            if lhs._keys[i].hasSameBytes(as: rhs._keys[i]) {
                if lhs._values[i] != rhs._values[i] { return false }
            } else {
                guard let j = rhs.index(forKey: lhs._keys[i]), lhs._values[i] == rhs._values[j] else {
                    return false
                }
            }
        }
        return true
    }
}

extension JSONObject: Hashable {
    /// Hashes the members independently of their order.
    public func hash(into hasher: inout Hasher) {
        // Order-independent: members combine commutatively.
        var folded = 0
        for i in 0..<count {
            var member = Hasher()
            member.combine(_keys[i])
            member.combine(_values[i])
            folded = folded &+ member.finalize()
        }
        hasher.combine(count)
        hasher.combine(folded)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with these members in this order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
