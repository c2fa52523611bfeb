/// One operation of a JSON Patch (RFC 6902).
///
/// ```swift
/// let op = JSONPatchOperation.replace(path: try JSONPointer("/user/name"), value: "Grace")
/// op.json   // {"op":"replace","path":"/user/name","value":"Grace"}
/// ```
public enum JSONPatchOperation: Sendable, Hashable {
    /// Inserts `value` at `path`: a new object member (or the new value of an existing one), or a
    /// new array element before the one at that index (`-` appends).
    case add(path: JSONPointer, value: JSONValue)
    /// Removes the value at `path`, which must exist.
    case remove(path: JSONPointer)
    /// Replaces the value at `path`, which must exist.
    case replace(path: JSONPointer, value: JSONValue)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: JSONPointer, path: JSONPointer)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: JSONPointer, path: JSONPointer)
    /// Succeeds when the value at `path` equals `value` (JSON equality), else fails the patch.
    case test(path: JSONPointer, value: JSONValue)

    /// The `op` member: `add`, `remove`, `replace`, `move`, `copy` or `test`.
    public var name: String {
        switch self {
        case .add: "add"
        case .remove: "remove"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The `path` member: where the operation acts.
    public var path: JSONPointer {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .test(let path, _): path
        case .move(_, let path), .copy(_, let path): path
        }
    }

    /// The `from` member of `move` and `copy`, else `nil`.
    public var from: JSONPointer? {
        switch self {
        case .move(let from, _), .copy(let from, _): from
        default: nil
        }
    }

    /// The `value` member of `add`, `replace` and `test`, else `nil`.
    public var value: JSONValue? {
        switch self {
        case .add(_, let value), .replace(_, let value), .test(_, let value): value
        default: nil
        }
    }

    /// The operation as a JSON object: `{"op", "from"?, "path", "value"?}`.
    public var json: JSONValue {
        var keys = ["op"]
        var values: [JSONValue] = [.string(name)]
        if let from {
            keys.append("from")
            values.append(.string(from.description))
        }
        keys.append("path")
        values.append(.string(path.description))
        if let value {
            keys.append("value")
            values.append(value)
        }
        return .object(JSONObject(uniqueKeys: keys, values: values))
    }

    /// Reads one operation from its JSON object, checking that it has the members its `op`
    /// needs; members it does not need are ignored, as RFC 6902 asks.
    ///
    /// `index` is the operation's position in its patch, carried into the error.
    public init(json: JSONValue, index: Int = 0) throws(JSONPatchError) {
        guard case .object(let object) = json else {
            throw JSONPatchError(index: index, reason: .operationNotAnObject(found: json.typeName))
        }
        func fail(_ reason: JSONPatchError.Reason, op: String? = nil, path: String? = nil) -> JSONPatchError {
            JSONPatchError(index: index, op: op, path: path, reason: reason)
        }
        guard let opValue = object["op"] else { throw fail(.missingMember("op")) }
        guard case .string(let op) = opValue else {
            throw fail(.memberNotAString("op", found: opValue.typeName))
        }
        guard ["add", "remove", "replace", "move", "copy", "test"].contains(op) else {
            throw fail(.unknownOperation(op))
        }
        func pointer(_ member: String, pathText: String?) throws(JSONPatchError) -> JSONPointer {
            guard let value = object[member] else { throw fail(.missingMember(member), op: op, path: pathText) }
            guard case .string(let text) = value else {
                throw fail(.memberNotAString(member, found: value.typeName), op: op, path: pathText)
            }
            do {
                return try JSONPointer(text)
            } catch {
                throw fail(.invalidPointer(member: member, error), op: op, path: pathText)
            }
        }
        let path = try pointer("path", pathText: nil)
        func value() throws(JSONPatchError) -> JSONValue {
            guard let value = object["value"] else { throw fail(.missingMember("value"), op: op, path: path.description) }
            return value
        }
        switch op {
        case "add": self = .add(path: path, value: try value())
        case "remove": self = .remove(path: path)
        case "replace": self = .replace(path: path, value: try value())
        case "test": self = .test(path: path, value: try value())
        case "move": self = .move(from: try pointer("from", pathText: path.description), path: path)
        default: self = .copy(from: try pointer("from", pathText: path.description), path: path)
        }
    }
}

extension JSONPatchOperation: CustomStringConvertible {
    /// A short label for messages: `replace /a/b`, `move /x → /y`.
    public var description: String {
        let target = path.isRoot ? "\"\"" : path.description
        if let from {
            return "\(name) \(from.isRoot ? "\"\"" : from.description) → \(target)"
        }
        return "\(name) \(target)"
    }
}
