/// A failed operation, before it is labelled with its index in the patch.
struct PatchFailure: Error {
    var reason: JSONPatchError.Reason
    init(_ reason: JSONPatchError.Reason) { self.reason = reason }
}

/// How to put back what one primitive step changed. Pointers are the operation's tokens; a
/// step on a member or element acts on the container named by all tokens but the last.
enum PatchUndoStep {
    /// Remove what was inserted: the member `tokens.last`, or the element at `index`.
    case remove(tokens: [String], index: Int?)
    /// Re-insert an element that was removed from the array.
    case insertElement(tokens: [String], index: Int, value: JSONValue)
    /// Re-insert a member that was removed, at its old position.
    case insertMember(tokens: [String], position: Int, value: JSONValue)
    /// Put back the value that was replaced.
    case set(tokens: [String], value: JSONValue)
}

/// The undo steps of the operations applied so far, replayed backwards when a later one fails.
struct PatchUndoLog {
    var steps: [PatchUndoStep] = []

    mutating func record(_ step: PatchUndoStep) { steps.append(step) }

    mutating func rollBack(_ document: inout JSONValue) {
        while let step = steps.popLast() {
            do {
                try document.undo(step)
            } catch {
                // Each step reverses one that just succeeded at the same place, so it cannot fail.
                assertionFailure("undo failed: \(error.reason)")
            }
        }
    }
}

extension JSONValue {
    /// Applies one operation in place; on failure the document may hold the earlier steps of
    /// this same operation (move), which `undo` has recorded.
    mutating func _apply(_ operation: JSONPatchOperation, undo: inout PatchUndoLog, budget: inout PatchBudget) throws(PatchFailure) {
        switch operation {
        case .add(let path, let value):
            try budget.place(value, at: path.tokens)
            undo.record(try addValue(value, at: path.tokens))
        case .remove(let path):
            undo.record(try removeValue(at: path.tokens).undo)
        case .replace(let path, let value):
            let tokens = path.tokens
            try budget.place(value, at: tokens)
            let old = try withValue(at: tokens, end: tokens.count, isFrom: false) { (target) throws(PatchFailure) in
                swapValue(&target, value)
            }
            undo.record(.set(tokens: tokens, value: old))
        case .test(let path, let expected):
            let actual = try value(at: path.tokens, isFrom: false)
            guard actual == expected else { throw PatchFailure(.testFailed(found: actual)) }
        case .copy(let from, let path):
            let value = try value(at: from.tokens, isFrom: true)
            try budget.place(value, at: path.tokens)
            undo.record(try addValue(value, at: path.tokens))
        case .move(let from, let path):
            if from == path {
                _ = try value(at: from.tokens, isFrom: true)
                return
            }
            if from.isAncestor(of: path) { throw PatchFailure(.moveIntoDescendant) }
            if path.tokens.count > from.tokens.count {
                // Going deeper: the moved value must still fit under the depth limit.
                try budget.place(try value(at: from.tokens, isFrom: true), at: path.tokens)
            }
            let removed: (value: JSONValue, undo: PatchUndoStep)
            do {
                removed = try removeValue(at: from.tokens)
            } catch {
                throw PatchFailure(Self.asFromFailure(error.reason))
            }
            undo.record(removed.undo)
            undo.record(try addValue(removed.value, at: path.tokens))
        }
    }

    /// Reverses one recorded step.
    mutating func undo(_ step: PatchUndoStep) throws(PatchFailure) {
        switch step {
        case .remove(let tokens, let index):
            try withValue(at: tokens, end: tokens.count - 1, isFrom: false) { (container) throws(PatchFailure) in
                if var object = container.takeObject() {
                    object.removeValue(forKey: tokens[tokens.count - 1])
                    container = .object(object)
                } else if var elements = container.takeArray(), let index {
                    elements.remove(at: index)
                    container = .array(elements)
                }
            }
        case .insertElement(let tokens, let index, let value):
            try withValue(at: tokens, end: tokens.count - 1, isFrom: false) { (container) throws(PatchFailure) in
                guard var elements = container.takeArray() else { return }
                elements.insert(value, at: index)
                container = .array(elements)
            }
        case .insertMember(let tokens, let position, let value):
            try withValue(at: tokens, end: tokens.count - 1, isFrom: false) { (container) throws(PatchFailure) in
                guard var object = container.takeObject() else { return }
                object.insert(value, forKey: tokens[tokens.count - 1], at: min(position, object.count))
                container = .object(object)
            }
        case .set(let tokens, let value):
            try withValue(at: tokens, end: tokens.count, isFrom: false) { (target) throws(PatchFailure) in
                target = value
            }
        }
    }

    /// RFC 6902 `add`: sets a member, inserts an element (`-` appends) or replaces the document.
    mutating func addValue(_ value: JSONValue, at tokens: [String]) throws(PatchFailure) -> PatchUndoStep {
        guard let token = tokens.last else {
            return .set(tokens: tokens, value: swapValue(&self, value))
        }
        return try withValue(at: tokens, end: tokens.count - 1, isFrom: false) { (container) throws(PatchFailure) in
            if var object = container.takeObject() {
                defer { container = .object(object) }
                if let position = object.index(forKey: token) {
                    return .set(tokens: tokens, value: object.exchangeValue(at: position, with: value))
                }
                object.insert(value, forKey: token, at: object.count)
                return .remove(tokens: tokens, index: nil)
            }
            if var elements = container.takeArray() {
                defer { container = .array(elements) }
                let index = token == "-" ? elements.count : try Self.elementIndex(
                    token, count: elements.count, allowEnd: true, tokens: tokens, depth: tokens.count - 1)
                elements.insert(value, at: index)
                return .remove(tokens: tokens, index: index)
            }
            throw PatchFailure(.notAContainer(JSONPointer(tokens: Array(tokens.dropLast())), found: container.typeName))
        }
    }

    /// RFC 6902 `remove`: the member or element must exist.
    mutating func removeValue(at tokens: [String]) throws(PatchFailure) -> (value: JSONValue, undo: PatchUndoStep) {
        guard let token = tokens.last else { throw PatchFailure(.cannotRemoveRoot) }
        return try withValue(at: tokens, end: tokens.count - 1, isFrom: false) { (container) throws(PatchFailure) in
            if var object = container.takeObject() {
                defer { container = .object(object) }
                guard let position = object.index(forKey: token) else {
                    throw PatchFailure(.pathNotFound(JSONPointer(tokens: tokens)))
                }
                let old = object.removeValue(forKey: token)!
                return (old, .insertMember(tokens: tokens, position: position, value: old))
            }
            if var elements = container.takeArray() {
                defer { container = .array(elements) }
                let index = try Self.elementIndex(token, count: elements.count, tokens: tokens, depth: tokens.count - 1)
                let old = elements.remove(at: index)
                return (old, .insertElement(tokens: tokens, index: index, value: old))
            }
            throw PatchFailure(.notAContainer(JSONPointer(tokens: Array(tokens.dropLast())), found: container.typeName))
        }
    }

    /// Calls `body` with the value at `tokens[0..<end]`, in place: each container on the way is
    /// taken out of its enum case while it is mutated, so its buffer stays uniquely referenced
    /// and is not copied. Throws, with the document unchanged, when the path does not resolve.
    mutating func withValue<R>(
        at tokens: [String], end: Int, depth: Int = 0, isFrom: Bool,
        _ body: (inout JSONValue) throws(PatchFailure) -> R
    ) throws(PatchFailure) -> R {
        if depth == end { return try body(&self) }
        let token = tokens[depth]
        if var object = takeObject() {
            defer { self = .object(object) }
            guard let position = object.index(forKey: token) else {
                let prefix = JSONPointer(tokens: Array(tokens[...depth]))
                throw PatchFailure(isFrom ? .fromNotFound(prefix) : .pathNotFound(prefix))
            }
            return try object.withValue(at: position) { (child) throws(PatchFailure) in
                try child.withValue(at: tokens, end: end, depth: depth + 1, isFrom: isFrom, body)
            }
        }
        if var elements = takeArray() {
            defer { self = .array(elements) }
            let index = try Self.elementIndex(token, count: elements.count, tokens: tokens, depth: depth)
            return try elements[index].withValue(at: tokens, end: end, depth: depth + 1, isFrom: isFrom, body)
        }
        throw PatchFailure(.notAContainer(JSONPointer(tokens: Array(tokens[..<depth])), found: typeName))
    }

    /// The value at `tokens`, or the reason it cannot be reached.
    func value(at tokens: [String], isFrom: Bool) throws(PatchFailure) -> JSONValue {
        var current = self
        for depth in tokens.indices {
            let token = tokens[depth]
            switch current {
            case .object(let object):
                guard let position = object.index(forKey: token) else {
                    let prefix = JSONPointer(tokens: Array(tokens[...depth]))
                    throw PatchFailure(isFrom ? .fromNotFound(prefix) : .pathNotFound(prefix))
                }
                current = object.value(at: position)
            case .array(let elements):
                current = elements[try Self.elementIndex(token, count: elements.count, tokens: tokens, depth: depth)]
            default:
                throw PatchFailure(.notAContainer(JSONPointer(tokens: Array(tokens[..<depth])), found: current.typeName))
            }
        }
        return current
    }

    /// The index `token` names in an array of `count` elements, or the reason it names none.
    /// `allowEnd` accepts `count` itself, the position an add appends at.
    static func elementIndex(
        _ token: String, count: Int, allowEnd: Bool = false, tokens: [String], depth: Int
    ) throws(PatchFailure) -> Int {
        guard let index = JSONPointer.arrayIndex(token) else {
            throw PatchFailure(.invalidArrayIndex(JSONPointer(tokens: Array(tokens[..<depth])), token: token))
        }
        guard index < count || (allowEnd && index == count) else {
            throw PatchFailure(.indexOutOfBounds(JSONPointer(tokens: Array(tokens[..<depth])), index: index, count: count))
        }
        return index
    }

    /// A failure while removing the `from` value of a move, reported as being about `from`.
    static func asFromFailure(_ reason: JSONPatchError.Reason) -> JSONPatchError.Reason {
        if case .pathNotFound(let prefix) = reason { return .fromNotFound(prefix) }
        return reason
    }
}

/// Stores `value` in `target` and returns what was there, without an extra copy.
@inline(__always)
func swapValue(_ target: inout JSONValue, _ value: JSONValue) -> JSONValue {
    var value = value
    swap(&target, &value)
    return value
}
