/// A coding path kept as a linked list, so that going one level deeper costs one small
/// allocation instead of copying an array, and the `[any CodingKey]` form is only built when
/// someone asks for it (an error, or a type that reads `codingPath`).
indirect enum CodingPathNode: Sendable {
    case root
    case key(any CodingKey, parent: CodingPathNode)
    case index(Int, parent: CodingPathNode)

    /// The path as coding keys, outermost first.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(JSONCodingKey(index: index))
                node = parent
            }
        }
    }

    func appending(_ key: any CodingKey) -> CodingPathNode { .key(key, parent: self) }

    func appending(index: Int) -> CodingPathNode { .index(index, parent: self) }
}

/// The coding keys the bridge makes itself: array positions, `super`, and string keys.
struct JSONCodingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of position `index` in an array. Its string form is `Index 3`, as Foundation's
    /// coders spell it, which is also how ``Swift/Array/jsonPointer`` tells positions from keys.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let `super` = JSONCodingKey(stringValue: "super")
}
