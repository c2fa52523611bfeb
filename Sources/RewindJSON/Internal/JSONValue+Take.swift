extension JSONValue {
    /// Moves the object out of this value, leaving `.null`, or returns `nil` (and changes
    /// nothing) when this is not an object.
    ///
    /// This is how a container inside an enum is mutated without a copy: while the enum also
    /// holds it, the container's buffers are shared and the first write would copy them. The
    /// taking happens in its own function so that no temporary of the caller keeps a second
    /// reference alive (unoptimised builds keep the subject of a `switch` until its end).
    @inline(__always)
    mutating func takeObject() -> JSONObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }

    /// Moves the array out of this value, leaving `.null`; see ``takeObject()``.
    @inline(__always)
    mutating func takeArray() -> [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        self = .null
        return elements
    }
}
