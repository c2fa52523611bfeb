/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// ```swift
/// let headers: HTTPHeaders = ["Cache-Control": "no-store"]
/// headers["cache-control"]   // "no-store"
/// ```
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// The fields in order, names as given.
    public private(set) var fields: [(name: String, value: String)]

    /// Headers with the given fields.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Headers from a literal, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The value of the first field named `name` (any case), or `nil`.
    public subscript(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Appends a field, keeping any others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` (any case) with one field, or removes them for `nil`.
    public mutating func set(_ name: String, _ value: String?) {
        let wanted = name.lowercased()
        fields.removeAll { $0.name.lowercased() == wanted }
        if let value { fields.append((name: name, value: value)) }
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Equal when the same fields come in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}
