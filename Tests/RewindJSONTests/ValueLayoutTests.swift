import Foundation
import Testing
@testable import RewindJSON
import RewindTestSupport

/// `ValueLayout`: which bytes a memoizing encoder compares, and which types it never reuses.
@Suite("Value layout", .ownThreads)
struct ValueLayoutTests {
    struct Padded { var id: Int; var done: Bool; var score: Double?; var flag: Bool }
    final class Box {}
    struct WithClass { var name: String; var box: Box }
    struct WithWeak { weak var box: Box?; var id: Int }
    struct WithPointer { var pointer: UnsafePointer<Int>; var id: Int }
    struct WithExistential { var value: any Encodable; var id: Int }
    struct Tree { var label: String; var children: [Tree] }
    struct TreeWithBox { var children: [TreeWithBox]; var box: Box? }
    enum Status { case idle, busy(Int, String) }
    struct Plain { var id: UUID; var at: Date; var data: Data; var url: URL; var tags: Set<String>; var status: Status; var pair: (Int, Bool) }

    @Test("padding between fields is left out of the comparison")
    func paddingIsSkipped() {
        let layout = ValueLayout.of(Padded.self)
        // id 0..<8, done 8..<9, score 16..<25 (Double? is 9 bytes), flag 25..<26.
        #expect(layout.ranges == [0..<9, 16..<26])
        #expect(layout.holdsReference == false)

        // Two equal values whose padding differs compare as the same.
        let a = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Padded>.size, alignment: 8)
        let b = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Padded>.size, alignment: 8)
        defer { a.deallocate(); b.deallocate() }
        a.initializeMemory(as: UInt8.self, repeating: 0xAA, count: MemoryLayout<Padded>.size)
        b.initializeMemory(as: UInt8.self, repeating: 0x55, count: MemoryLayout<Padded>.size)
        let value = Padded(id: 3, done: true, score: 1.5, flag: false)
        a.bindMemory(to: Padded.self, capacity: 1).initialize(to: value)
        b.bindMemory(to: Padded.self, capacity: 1).initialize(to: value)
        #expect(layout.sameBytes(a, b))
        b.assumingMemoryBound(to: Padded.self).pointee.flag = true
        #expect(!layout.sameBytes(a, b))
    }

    @Test("a class, weak reference, pointer or existential anywhere in the stored properties holds a reference")
    func references() {
        #expect(ValueLayout.of(WithClass.self).holdsReference)
        #expect(ValueLayout.of(WithWeak.self).holdsReference)
        #expect(ValueLayout.of(WithPointer.self).holdsReference)
        #expect(ValueLayout.of(WithExistential.self).holdsReference)
        #expect(ValueLayout.of([WithClass].self).holdsReference)
        #expect(ValueLayout.of([String: [Box]].self).holdsReference)
        #expect(ValueLayout.of(Box.self).holdsReference)
        #expect(ValueLayout.of(TreeWithBox.self).holdsReference)
    }

    @Test("a collection anywhere outside an enum payload is a collection; strings and enums are not")
    func collections() {
        struct Row { var id: Int; var title: String; var status: Status; var note: String? }
        struct Table { var rows: [Row] }
        struct Blob { var data: Data }
        struct Maybe { var ids: Set<Int>? }
        #expect(ValueLayout.of(Row.self).isRememberable)
        #expect(ValueLayout.of(Table.self).holdsCollection)
        #expect(ValueLayout.of(Blob.self).holdsCollection)
        #expect(ValueLayout.of(Maybe.self).holdsCollection)
        #expect(ValueLayout.of([Row].self).holdsCollection)
        #expect(ValueLayout.of(Status.self).isRememberable)
        #expect(ValueLayout.of(WithClass.self).isRememberable == false)
    }

    @Test("value types built from the standard library and Foundation hold none, recursive ones included")
    func values() {
        #expect(ValueLayout.of(Plain.self).holdsReference == false)
        #expect(ValueLayout.of(Tree.self).holdsReference == false)
        #expect(ValueLayout.of([String: [Int?]].self).holdsReference == false)
        #expect(ValueLayout.of(JSONValue.self).holdsReference == false)
        #expect(ValueLayout.of(Tree.self).ranges == [0..<MemoryLayout<Tree>.size])
    }
}
