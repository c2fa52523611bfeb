/// Why a JSON Patch could not be read or applied, naming the operation and the location.
///
/// `description` reads `operation 3 (replace /a/b): path does not exist` or
/// `operation 0 (add /bar/8): index 8 is out of bounds for the array at /bar (2 elements)`.
public struct JSONPatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        // Reading the patch document.
        /// The patch document is not an array.
        case patchNotAnArray(found: String)
        /// An operation is not a JSON object.
        case operationNotAnObject(found: String)
        /// A member the operation needs is missing (`op`, `path`, `from` or `value`).
        case missingMember(String)
        /// `op`, `path` or `from` is not a string.
        case memberNotAString(String, found: String)
        /// `op` is none of add, remove, replace, move, copy, test.
        case unknownOperation(String)
        /// `path` or `from` is not a valid JSON Pointer.
        case invalidPointer(member: String, JSONPointerError)

        // Applying it.
        /// This prefix of the target path names no value.
        case pathNotFound(JSONPointer)
        /// This prefix of `from` names no value.
        case fromNotFound(JSONPointer)
        /// The value at this pointer is a scalar, so it has no members or elements.
        case notAContainer(JSONPointer, found: String)
        /// The token is not an array index (digits, no leading zeros; `-` only for add).
        case invalidArrayIndex(JSONPointer, token: String)
        /// The index is past the end of the array at this pointer.
        case indexOutOfBounds(JSONPointer, index: Int, count: Int)
        /// `remove` of the whole document.
        case cannotRemoveRoot
        /// `move` into one of the moved value's own descendants.
        case moveIntoDescendant
        /// `test` found a different value (or none).
        case testFailed(found: JSONValue)
        /// The value placed at this pointer would nest the document deeper than the limit.
        case tooDeep(JSONPointer, limit: Int)
        /// The operations so far would place more bytes than the limit allows.
        case tooLarge(limit: Int)
    }

    /// The 0-based position of the operation in its patch, or `nil` when the patch as a whole
    /// is malformed.
    public var index: Int?
    /// The operation's `op`, when known.
    public var op: String?
    /// The operation's `path` text, when known.
    public var path: String?
    /// The operation's `from` text, for move and copy.
    public var from: String?
    /// What went wrong.
    public var reason: Reason

    public init(index: Int?, op: String? = nil, path: String? = nil, from: String? = nil, reason: Reason) {
        self.index = index
        self.op = op
        self.path = path
        self.from = from
        self.reason = reason
    }

    /// An error about `operation`, the `index`th of its patch.
    init(index: Int, operation: JSONPatchOperation, reason: Reason) {
        self.init(index: index, op: operation.name, path: operation.path.description,
                  from: operation.from?.description, reason: reason)
    }

    /// The reason as one sentence fragment, without the operation label.
    public var message: String {
        func place(_ pointer: JSONPointer) -> String { pointer.isRoot ? "the document" : pointer.description }
        switch reason {
        case .patchNotAnArray(let found): return "a JSON patch must be an array of operations, found \(found)"
        case .operationNotAnObject(let found): return "an operation must be an object, found \(found)"
        case .missingMember(let member): return "missing '\(member)' member"
        case .memberNotAString(let member, let found): return "'\(member)' must be a string, found \(found)"
        case .unknownOperation(let op): return "unknown op '\(op)' (expected add, remove, replace, move, copy or test)"
        case .invalidPointer(let member, let error): return "'\(member)' is not a JSON pointer: \(error.message)"
        case .pathNotFound(let prefix):
            return prefix.description == path ? "path does not exist" : "\(prefix) does not exist"
        case .fromNotFound(let prefix):
            return prefix.description == from ? "'from' location does not exist" : "'from' location does not exist: \(prefix) does not exist"
        case .notAContainer(let at, let found):
            return "\(place(at)) is \(article(found)) \(found), not an object or array"
        case .invalidArrayIndex(let at, let token):
            if token == "-" { return "'-' names no element of the array at \(place(at)) (only add may use it)" }
            return "'\(token)' is not an index into the array at \(place(at))"
        case .indexOutOfBounds(let at, let index, let count):
            return "index \(index) is out of bounds for the array at \(place(at)) (\(count) element\(count == 1 ? "" : "s"))"
        case .cannotRemoveRoot: return "cannot remove the whole document"
        case .moveIntoDescendant: return "cannot move a value into one of its own descendants"
        case .testFailed(let found):
            var text = found.serialized()
            if text.count > 60 { text = String(text.prefix(59)) + "…" }
            return "test failed: the value there is \(text)"
        case .tooDeep(let at, let limit):
            return "the value at \(place(at)) would nest the document deeper than the limit of \(limit) levels"
        case .tooLarge(let limit):
            return "the operations would add more than \(limit) bytes, the limit on what one patch may add"
        }
    }

    /// `operation 3 (replace /a/b)`, or `the patch` for a malformed patch document.
    public var operationLabel: String {
        guard let index else { return "the patch" }
        guard let op else { return "operation \(index)" }
        var label = "operation \(index) (\(op)"
        if let from { label += " " + (from.isEmpty ? "\"\"" : from) + " →" }
        if let path { label += " " + (path.isEmpty ? "\"\"" : path) }
        return label + ")"
    }

    public var description: String {
        index == nil ? message : "\(operationLabel): \(message)"
    }

    private func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }
}
