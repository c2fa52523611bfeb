extension JSONObject {
    /// Calls `body` with the value at `position` as an `inout` argument, so it is mutated in
    /// its buffer rather than copied out and written back.
    @inline(__always)
    mutating func withValue<R, E: Error>(at position: Int, _ body: (inout JSONValue) throws(E) -> R) throws(E) -> R {
        try body(&_values[position])
    }

    /// Replaces the value at `position` and returns the old one.
    @inline(__always)
    mutating func exchangeValue(at position: Int, with value: JSONValue) -> JSONValue {
        var value = value
        swap(&value, &_values[position])
        return value
    }

    /// The value at `position`.
    @inline(__always)
    func value(at position: Int) -> JSONValue {
        _values[position]
    }

    /// `true` when both objects use the very same key and value buffers, which makes them equal
    /// without looking at a member (copies of one object share them until either is mutated).
    @inline(__always)
    func sharesStorage(with other: JSONObject) -> Bool {
        _values.withUnsafeBufferPointer { $0.baseAddress } == other._values.withUnsafeBufferPointer { $0.baseAddress }
            && _keys.withUnsafeBufferPointer { $0.baseAddress } == other._keys.withUnsafeBufferPointer { $0.baseAddress }
            && _values.count == other._values.count
    }
}
