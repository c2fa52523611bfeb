import Foundation

/// Where a remembered value sat in its parent: a member, an element, or the one value a
/// single-value container holds.
enum MemoKey: Equatable {
    case name(String)
    case index(Int)
    case single
}

/// One value encoded by the previous run of a ``JSONValueEncoder/Memo``: the Swift value itself
/// (kept, so that its buffers stay shared and cannot be changed in place), what it encoded to,
/// and the same for the non-scalar values inside it, in encoding order.
class MemoNode {
    let type: ObjectIdentifier
    var encoded: JSONValue = .null
    /// `false` when the value, or anything encoded inside it, is a class instance (whose
    /// contents can change while the reference stays the same) or a number that had to be
    /// reported as non-finite (the report must be made again).
    var reusable = true
    var children: [(key: MemoKey, node: MemoNode)] = []

    init(type: ObjectIdentifier) { self.type = type }

    /// The child that encoding order puts at `ordinal`, if it sat under the same key.
    func child(at ordinal: Int, key: MemoKey) -> MemoNode? {
        guard ordinal < children.count, children[ordinal].key == key else { return nil }
        return children[ordinal].node
    }
}

final class TypedMemoNode<Value>: MemoNode {
    /// The remembered copy, kept at a fixed address so that it can be compared in place.
    private let storage: UnsafeMutablePointer<Value>
    private let layout: ValueLayout

    init(_ value: Value, layout: ValueLayout) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        self.layout = layout
        super.init(type: ObjectIdentifier(Value.self))
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// `true` when the value at `other` has the same bytes as the remembered one, padding aside.
    /// Because the remembered copy is kept alive, every buffer it shares with `other` is shared,
    /// so copy-on-write types (arrays, dictionaries, strings) could not have been changed in
    /// place: the same bytes are the same value, for types that hold no reference (see
    /// ``ValueLayout``; nodes of the others are never reusable).
    func hasSameBits(as other: UnsafePointer<Value>) -> Bool {
        layout.sameBytes(storage, other)
    }
}

/// The parent a child value is remembered under while its parent is being encoded: the new node
/// and the node the previous run left at the same place.
struct MemoFrame {
    let previous: MemoNode?
    let node: MemoNode

    /// The previous run's node for the next child under `key`.
    func previousChild(_ key: MemoKey) -> MemoNode? {
        previous?.child(at: node.children.count, key: key)
    }
}

/// Arrays, which a memoizing encoder reads in place instead of through `Array.encode(to:)`:
/// that walks the array by copying each element, and for an array of structs holding strings
/// the copies' reference counting costs more than comparing the elements.
protocol MemoizableArray {
    /// The elements of the array at `array`, encoded into a JSON array as `Array.encode(to:)`
    /// would, each one remembered under `frame`.
    static func encodeElements(at array: UnsafeRawPointer, context: EncodingContext, path: CodingPathNode,
                               frame: MemoFrame) throws -> JSONValue
}

extension Array: MemoizableArray where Element: Encodable {
    static func encodeElements(at array: UnsafeRawPointer, context: EncodingContext, path: CodingPathNode,
                               frame: MemoFrame) throws -> JSONValue {
        try array.assumingMemoryBound(to: [Element].self).pointee.withUnsafeBufferPointer { buffer in
            var elements: [JSONValue] = []
            elements.reserveCapacity(buffer.count)
            guard let base = buffer.baseAddress else { return .array(elements) }
            for index in 0..<buffer.count {
                elements.append(try context.encodeElement(base + index, index: index, of: path, in: frame))
            }
            return .array(elements)
        }
    }
}
