/// A JSON Patch (RFC 6902): operations applied in order, all or nothing.
///
/// ```swift
/// let patch = try JSONPatch(json: JSONValue(parsing: #"[{"op":"replace","path":"/n","value":2}]"#))
/// var state: JSONValue = ["n": 1]
/// try state.apply(patch)          // state is ["n": 2]
/// ```
///
/// Applying mutates the document in place along each operation's path, so a patch costs what it
/// touches, not the size of the document. When an operation fails, the ones before it are undone
/// and the error names the failing operation.
public struct JSONPatch: Sendable, Hashable {
    /// The operations, applied first to last.
    public var operations: [JSONPatchOperation]

    /// A patch with these operations.
    public init(_ operations: [JSONPatchOperation] = []) {
        self.operations = operations
    }

    /// Reads a patch from its JSON form (an array of operation objects), checking each
    /// operation's members; the error gives the index of the first bad one.
    public init(json: JSONValue) throws(JSONPatchError) {
        guard case .array(let elements) = json else {
            throw JSONPatchError(index: nil, reason: .patchNotAnArray(found: json.typeName))
        }
        var operations: [JSONPatchOperation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            operations.append(try JSONPatchOperation(json: element, index: index))
        }
        self.operations = operations
    }

    /// The patch as JSON: an array of operation objects.
    public var json: JSONValue {
        .array(operations.map(\.json))
    }

    /// `true` when the patch has no operations (applying it changes nothing).
    public var isEmpty: Bool { operations.isEmpty }

    /// The number of operations.
    public var count: Int { operations.count }

    /// `document` with the patch applied; `document` itself is untouched.
    ///
    /// Only the containers along the patched paths are copied; the rest is shared with
    /// `document`.
    public func apply(to document: JSONValue) throws(JSONPatchError) -> JSONValue {
        var result = document
        try result.apply(self)
        return result
    }
}

extension JSONPatch: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONPatchOperation...) {
        self.init(elements)
    }
}

extension JSONPatch: CustomStringConvertible {
    /// The compact JSON text of the patch.
    public var description: String { json.serialized() }
}

extension JSONValue {
    /// Applies `patch` in place: every operation, or none.
    ///
    /// Each operation mutates the document along its path without copying what it does not
    /// touch. When one fails, the operations before it are undone in reverse order, so the
    /// document is as it was, and the error names the operation's index, op, path and the reason.
    ///
    /// ```swift
    /// try state.apply(patch)   // operation 3 (replace /a/b): path does not exist
    /// ```
    ///
    /// `limits` bound the depth of the result (by default the parser's limit, so the result can
    /// always be printed and read back) and, when given, the bytes the patch may add; an
    /// operation that would pass one fails with ``JSONPatchError/Reason/tooDeep(_:limit:)`` or
    /// ``JSONPatchError/Reason/tooLarge(limit:)`` before it changes anything.
    public mutating func apply(_ patch: JSONPatch, limits: JSONPatchLimits = JSONPatchLimits()) throws(JSONPatchError) {
        _ = try applyKeepingUndo(patch, limits: limits)
    }

    /// Applies `patch` in place, all or nothing, and returns the undo log of what it changed.
    private mutating func applyKeepingUndo(_ patch: JSONPatch, limits: JSONPatchLimits) throws(JSONPatchError) -> PatchUndoLog {
        var undo = PatchUndoLog()
        var budget = PatchBudget(limits)
        for (index, operation) in patch.operations.enumerated() {
            do {
                try _apply(operation, undo: &undo, budget: &budget)
            } catch {
                undo.rollBack(&self)
                throw JSONPatchError(index: index, operation: operation, reason: error.reason)
            }
        }
        return undo
    }

    /// Applies one operation in place, or throws with the document unchanged.
    public mutating func apply(_ operation: JSONPatchOperation) throws(JSONPatchError) {
        try apply(JSONPatch([operation]))
    }
}

extension JSONValue {
    /// Applies `patch` in place, all or nothing like ``apply(_:)-(JSONPatch)``, and returns the
    /// patch that takes the result back to the document as it was (equal, member order aside),
    /// built from the undo log of the apply instead of a diff of the two documents.
    package mutating func applyReturningInverse(
        _ patch: JSONPatch, limits: JSONPatchLimits = JSONPatchLimits()
    ) throws(JSONPatchError) -> JSONPatch {
        let undo = try applyKeepingUndo(patch, limits: limits)
        var inverse: [JSONPatchOperation] = []
        inverse.reserveCapacity(undo.steps.count)
        for step in undo.steps.reversed() {
            switch step {
            case .remove(let tokens, let index):
                var path = tokens
                if let index { path[path.count - 1] = String(index) }
                inverse.append(.remove(path: JSONPointer(tokens: path)))
            case .insertElement(let tokens, let index, let value):
                var path = tokens
                path[path.count - 1] = String(index)
                inverse.append(.add(path: JSONPointer(tokens: path), value: value))
            case .insertMember(let tokens, _, let value):
                inverse.append(.add(path: JSONPointer(tokens: tokens), value: value))
            case .set(let tokens, let value):
                inverse.append(.replace(path: JSONPointer(tokens: tokens), value: value))
            }
        }
        return JSONPatch(inverse)
    }
}
