/// A first-in, first-out queue on a circular buffer: appending at the back and removing at the
/// front are O(1) and reuse the same storage, with none of the `removeFirst()` shifting of an
/// array. Indices run from 0 (the front) to `count`, so the collection algorithms
/// (`firstIndex(where:)`, slicing) work in queue order.
package struct RingQueue<Element> {
    @usableFromInline var storage: [Element?]
    /// Where the front element sits in `storage`.
    @usableFromInline var head = 0
    @usableFromInline var _count = 0

    package init() {
        storage = []
    }

    package init(minimumCapacity: Int) {
        storage = Array(repeating: nil, count: Swift.max(minimumCapacity, 0))
    }

    /// The number of slots the buffer holds before it grows.
    package var capacity: Int { storage.count }

    @inlinable
    package mutating func append(_ element: Element) {
        if _count == storage.count { grow() }
        storage[physical(_count)] = element
        _count += 1
    }

    package mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Removes and returns the front element, or nil when the queue is empty.
    @inlinable @discardableResult
    package mutating func popFirst() -> Element? {
        guard _count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = head + 1 == storage.count ? 0 : head + 1
        _count -= 1
        if _count == 0 { head = 0 }
        return element
    }

    /// Removes the front `k` elements.
    package mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= _count, "cannot remove \(k) elements from a queue of \(_count)")
        for _ in 0..<k { popFirst() }
    }

    /// Removes the front elements while `predicate` holds for them; returns how many went.
    @discardableResult
    package mutating func removeFirst(while predicate: (Element) throws -> Bool) rethrows -> Int {
        var removed = 0
        while let front = first, try predicate(front) {
            popFirst()
            removed += 1
        }
        return removed
    }

    /// Puts `element` back at the front (a batch that could not be sent after all).
    package mutating func prepend(_ element: Element) {
        if _count == storage.count { grow() }
        head = head == 0 ? storage.count - 1 : head - 1
        storage[head] = element
        _count += 1
    }

    /// Empties the queue; with `keepingCapacity`, keeps the buffer for reuse.
    package mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            for offset in 0..<_count { storage[physical(offset)] = nil }
        } else {
            storage = []
        }
        head = 0
        _count = 0
    }

    @inlinable
    func physical(_ offset: Int) -> Int {
        let index = head + offset
        return index >= storage.count ? index - storage.count : index
    }

    @usableFromInline
    mutating func grow() {
        let newCapacity = Swift.max(16, storage.count * 2)
        var grown = [Element?](repeating: nil, count: newCapacity)
        for offset in 0..<_count { grown[offset] = storage[physical(offset)] }
        storage = grown
        head = 0
    }
}

extension RingQueue: RandomAccessCollection, MutableCollection {
    package typealias Index = Int

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { _count }
    @inlinable package var count: Int { _count }
    @inlinable package var isEmpty: Bool { _count == 0 }

    @inlinable
    package subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < _count, "index \(position) is outside a queue of \(_count)")
            return storage[physical(position)]!
        }
        set {
            precondition(position >= 0 && position < _count, "index \(position) is outside a queue of \(_count)")
            storage[physical(position)] = newValue
        }
    }
}

extension RingQueue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: Element...) {
        self.init(minimumCapacity: elements.count)
        append(contentsOf: elements)
    }
}

extension RingQueue: Sendable where Element: Sendable {}
extension RingQueue: Equatable where Element: Equatable {
    package static func == (lhs: RingQueue, rhs: RingQueue) -> Bool {
        lhs.elementsEqual(rhs)
    }
}
