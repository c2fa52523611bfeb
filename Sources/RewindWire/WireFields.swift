import RewindJSON

/// Reads the members of one incoming message, turning every missing or mistyped member into a
/// ``WireError`` that names the message type and the member.
package struct WireFields {
    package let object: JSONObject
    package let type: String

    /// The message's members; `bad-json`-free input that is not an object with a string `type`
    /// is a `bad-message`.
    package init(_ value: JSONValue) throws(WireError) {
        guard case .object(let object) = value else {
            throw WireError(.badMessage, "a message must be a JSON object with a \"type\"")
        }
        guard case .string(let type)? = object["type"] else {
            throw WireError(.badMessage, "a message must have a string \"type\"", id: object["id"])
        }
        self.object = object
        self.type = type
    }

    /// The members of an object nested in a message (named `type` in errors).
    package init(object: JSONObject, type: String) {
        self.object = object
        self.type = type
    }

    /// The request id to echo, if any.
    package var id: JSONValue? { object["id"] }

    package func fail(_ member: String, _ expected: String) -> WireError {
        WireError(.badMessage, "\(type): \"\(member)\" must be \(expected)", id: id)
    }

    package func string(_ member: String) throws(WireError) -> String {
        guard case .string(let s)? = object[member] else { throw fail(member, "a string") }
        return s
    }

    package func optionalString(_ member: String) throws(WireError) -> String? {
        switch object[member] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw fail(member, "a string")
        }
    }

    package func seq(_ member: String) throws(WireError) -> Int64 {
        guard let value = try optionalSeq(member) else { throw fail(member, "a non-negative integer") }
        return value
    }

    package func optionalSeq(_ member: String) throws(WireError) -> Int64? {
        switch object[member] {
        case nil, .null?: return nil
        case .number(let n)?:
            guard let value = n.int64Value, value >= 0 else { throw fail(member, "a non-negative integer") }
            return value
        default: throw fail(member, "a non-negative integer")
        }
    }

    package func optionalInt(_ member: String) throws(WireError) -> Int64? {
        switch object[member] {
        case nil, .null?: return nil
        case .number(let n)?:
            guard let value = n.int64Value else { throw fail(member, "an integer") }
            return value
        default: throw fail(member, "an integer")
        }
    }

    package func number(_ member: String) throws(WireError) -> Double {
        guard case .number(let n)? = object[member], n.doubleValue.isFinite else { throw fail(member, "a number") }
        return n.doubleValue
    }

    package func optionalBool(_ member: String) throws(WireError) -> Bool? {
        switch object[member] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw fail(member, "true or false")
        }
    }

    package func value(_ member: String) throws(WireError) -> JSONValue {
        guard let value = object[member] else { throw fail(member, "present") }
        return value
    }

    package func optionalObject(_ member: String) throws(WireError) -> JSONObject? {
        switch object[member] {
        case nil, .null?: return nil
        case .object(let o)?: return o
        default: throw fail(member, "an object")
        }
    }

    package func optionalPointer(_ member: String) throws(WireError) -> JSONPointer? {
        guard let text = try optionalString(member) else { return nil }
        do {
            return try JSONPointer(text)
        } catch {
            throw WireError(.badMessage, "\(type): \"\(member)\" is not a JSON Pointer: \(error)", id: id)
        }
    }
}

/// Parses one frame as JSON, or a `bad-json` error saying where it broke.
package func parseFrame(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
    do {
        return try JSONValue(parsing: bytes)
    } catch {
        throw WireError(.badJSON, "the message is not valid JSON (\(error))")
    }
}

/// A 64-bit hash as 16 lower-case hex digits: JSON numbers lose precision past 2⁵³ in
/// JavaScript, so hashes travel as strings.
public func wireHash(_ hash: UInt64) -> String {
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

/// The hash in a wire string, or `nil` when it is not 1 to 16 hex digits.
public func parseWireHash(_ text: String) -> UInt64? {
    guard !text.isEmpty, text.count <= 16 else { return nil }
    return UInt64(text, radix: 16)
}
