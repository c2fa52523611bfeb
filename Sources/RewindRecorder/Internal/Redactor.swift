import RewindJSON

/// Replaces the values at a fixed set of JSON Pointers by `"<redacted>"`.
struct Redactor: Sendable {
    static let placeholder: JSONValue = "<redacted>"
    let pointers: [JSONPointer]

    /// Parses `paths`; throws naming the first that is not a JSON Pointer.
    init(_ paths: [String]) throws(RecorderError) {
        var pointers: [JSONPointer] = []
        for path in paths {
            do {
                pointers.append(try JSONPointer(path))
            } catch {
                throw RecorderError(kind: .invalidRedactionPath(path), message: "\(error)")
            }
        }
        self.pointers = pointers
    }

    func redact(_ value: inout JSONValue) {
        for pointer in pointers {
            if pointer.isRoot {
                value = Self.placeholder
            } else if pointer.resolve(in: value) != nil {
                try? value.apply(.replace(path: pointer, value: Self.placeholder))
            }
        }
    }
}
