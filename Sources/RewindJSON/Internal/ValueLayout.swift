@_spi(Reflection) import Swift
import Foundation

/// Which bytes of a type's values carry the value, and whether a value can reach memory that
/// changes while its own bytes stay the same.
///
/// A memoizing encoder compares a value with the one it remembered, byte for byte. Padding
/// between fields holds whatever was in memory, so comparing it would make equal values look
/// different: only the bytes of the fields are compared. And the comparison only says "unchanged"
/// for values whose bytes are the whole story: a class instance, an unsafe pointer or an
/// existential (which may hold a class) can change behind the same bytes, so a type holding one
/// anywhere in its stored properties is never reused (its values are encoded every time; the
/// values inside them can still be reused).
///
/// A copy is also never kept of a value holding a collection (an array, set, dictionary or
/// `Data`): the copy would share the collection's buffer with the app's state, and the app's
/// next change to it, made in place until then, would copy the whole collection on the main
/// actor. Strings are kept: the encoded state shares their storage already.
///
/// The fields come from the runtime's reflection metadata (`_forEachField`), once per type.
/// Enums are compared whole, padding in their payloads included (a padded payload only costs
/// reuse), and their payloads are not inspected: an enum that carries a class instance is caught
/// only when the encoder is handed that instance, which synthesised `Codable` always does.
final class ValueLayout {
    let size: Int
    /// Sorted, disjoint, merged byte ranges.
    let ranges: [Range<Int>]
    let holdsReference: Bool
    let holdsCollection: Bool
    private let isWhole: Bool

    /// Whether a copy of a value may be kept and compared with later values.
    var isRememberable: Bool { !holdsReference && !holdsCollection }

    init(size: Int, ranges: [Range<Int>], holdsReference: Bool, holdsCollection: Bool) {
        self.size = size
        self.ranges = ranges
        self.holdsReference = holdsReference
        self.holdsCollection = holdsCollection
        isWhole = ranges == [0..<size]
    }

    /// `true` when the values at `a` and `b` have the same bytes wherever a field is.
    func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
        if isWhole { return memcmp(a, b, size) == 0 }
        for range in ranges where memcmp(a + range.lowerBound, b + range.lowerBound, range.count) != 0 {
            return false
        }
        return true
    }

    /// The layout of `Value`.
    static func of<Value>(_: Value.Type) -> ValueLayout {
        var analyzer = LayoutAnalyzer()
        let kind = LayoutAnalyzer.kind(of: Value.self)
        let found = analyzer.analyze(Value.self, kind: kind)
        return ValueLayout(size: MemoryLayout<Value>.size, ranges: LayoutAnalyzer.merged(found.ranges),
                           holdsReference: found.holdsReference, holdsCollection: found.holdsCollection)
    }
}

/// Standard containers whose element types decide whether they hold a reference (their own
/// storage is a copy-on-write buffer, which a kept copy protects).
protocol ElementTypesCarrier {
    static var elementTypes: [Any.Type] { get }
    /// `false` for `Optional`, which has no buffer of its own.
    static var isCollection: Bool { get }
}

extension ElementTypesCarrier {
    static var isCollection: Bool { true }
}

extension Array: ElementTypesCarrier { static var elementTypes: [Any.Type] { [Element.self] } }
extension ContiguousArray: ElementTypesCarrier { static var elementTypes: [Any.Type] { [Element.self] } }
extension ArraySlice: ElementTypesCarrier { static var elementTypes: [Any.Type] { [Element.self] } }
extension Set: ElementTypesCarrier { static var elementTypes: [Any.Type] { [Element.self] } }
extension Dictionary: ElementTypesCarrier { static var elementTypes: [Any.Type] { [Key.self, Value.self] } }
extension Optional: ElementTypesCarrier {
    static var elementTypes: [Any.Type] { [Wrapped.self] }
    static var isCollection: Bool { false }
}

private struct LayoutProbe<Value> {
    var value: Value
}

private struct LayoutAnalyzer {
    /// Types being analysed further up: a recursive type (`struct Node { var children: [Node] }`)
    /// adds nothing through its own edge.
    private var inProgress: Set<ObjectIdentifier> = []

    /// Value types whose internals hold references to immutable or copy-on-write storage.
    private static let valueLeaves: Set<ObjectIdentifier> = [
        ObjectIdentifier(String.self), ObjectIdentifier(Substring.self), ObjectIdentifier(Character.self),
        ObjectIdentifier(URL.self), ObjectIdentifier(Date.self),
        ObjectIdentifier(Decimal.self), ObjectIdentifier(UUID.self), ObjectIdentifier(JSONValue.self),
        ObjectIdentifier(JSONObject.self), ObjectIdentifier(JSONNumber.self),
    ]

    static func kind<Value>(of _: Value.Type) -> _MetadataKind {
        var kind = _MetadataKind.unknown
        _ = _forEachField(of: LayoutProbe<Value>.self) { _, _, _, fieldKind in
            kind = fieldKind
            return false
        }
        return kind
    }

    static func size(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }

    typealias Found = (ranges: [Range<Int>], holdsReference: Bool, holdsCollection: Bool)

    mutating func analyze(_ type: Any.Type, kind: _MetadataKind) -> Found {
        let size = Self.size(of: type)
        let whole = size == 0 ? [] : [0..<size]
        if Self.valueLeaves.contains(ObjectIdentifier(type)) { return (whole, false, false) }
        if type == Data.self { return (whole, false, true) }
        if let carrier = type as? any ElementTypesCarrier.Type {
            let elements = carrier.elementTypes.map { analyzeElement($0) }
            return (whole, elements.contains { $0.holdsReference },
                    carrier.isCollection || elements.contains { $0.holdsCollection })
        }
        switch kind {
        case .struct, .tuple:
            let name = _typeName(type)
            if ["Swift.Unsafe", "Swift.OpaquePointer", "Swift.Unmanaged", "Swift.AutoreleasingUnsafe"].contains(where: name.hasPrefix) {
                return (whole, true, false)
            }
            let id = ObjectIdentifier(type)
            if inProgress.contains(id) { return (whole, false, false) }
            inProgress.insert(id)
            defer { inProgress.remove(id) }
            var ranges: [Range<Int>] = []
            var holdsReference = false
            var holdsCollection = false
            let complete = _forEachField(of: type) { _, offset, fieldType, fieldKind in
                let field = analyze(fieldType, kind: fieldKind)
                ranges += field.ranges.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
                holdsReference = holdsReference || field.holdsReference
                holdsCollection = holdsCollection || field.holdsCollection
                return true
            }
            return complete ? (ranges, holdsReference, holdsCollection) : (whole, true, holdsCollection)
        case .opaque:
            // Builtin integers and floats are plain bits; a builtin pointer or object is not.
            let name = _typeName(type)
            return (whole, !(name.hasPrefix("Builtin.Int") || name.hasPrefix("Builtin.FPIEEE") || name.hasPrefix("Builtin.Vec")), false)
        case .enum, .metatype:
            // An enum's payload cannot be changed in place (a pattern binds a copy), so a kept
            // copy costs the app nothing even when the payload is a collection.
            return (whole, false, false)
        default:
            // Classes, existentials, functions, foreign types and anything newer.
            return (whole, true, false)
        }
    }

    private mutating func analyzeElement(_ type: Any.Type) -> Found {
        if inProgress.contains(ObjectIdentifier(type)) { return ([], false, false) }
        func kind<T>(_: T.Type) -> _MetadataKind { Self.kind(of: T.self) }
        return analyze(type, kind: _openExistential(type, do: kind))
    }

    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
