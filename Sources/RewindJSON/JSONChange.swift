/// One changed location in a ``JSONDiff``, as a person reads it: what was there and what is
/// there now.
///
/// ```swift
/// for change in JSONDiff(from: old, to: new).changes {
///     print(change)    // ~ /user/name: "Ada" → "Grace"
/// }
/// ```
public struct JSONChange: Sendable, Hashable {
    /// The kind of change.
    public enum Kind: Sendable, Hashable {
        /// A member or element that only the target has.
        case added
        /// A member or element that only the source has.
        case removed
        /// A value replaced by another.
        case changed
    }

    /// The kind of change.
    public var kind: Kind
    /// Where it happened: the location in the source document for a removal, in the target
    /// document otherwise (array indices differ between the two when elements were added or
    /// removed before it).
    public var path: JSONPointer
    /// The value before, for `removed` and `changed`.
    public var oldValue: JSONValue?
    /// The value after, for `added` and `changed`.
    public var newValue: JSONValue?

    public init(kind: Kind, path: JSONPointer, oldValue: JSONValue?, newValue: JSONValue?) {
        self.kind = kind
        self.path = path
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

extension JSONChange: CustomStringConvertible {
    /// One line: `+ /items/3: {"id":4}`, `- /tags/0: "x"`, `~ /user/name: "Ada" → "Grace"`.
    public var description: String {
        let where_ = path.isRoot ? "\"\"" : path.description
        switch kind {
        case .added: return "+ \(where_): \(newValue?.serialized() ?? "")"
        case .removed: return "- \(where_): \(oldValue?.serialized() ?? "")"
        case .changed: return "~ \(where_): \(oldValue?.serialized() ?? "") → \(newValue?.serialized() ?? "")"
        }
    }
}
