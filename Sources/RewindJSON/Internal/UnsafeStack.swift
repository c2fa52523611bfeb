/// A stack over manually managed memory: pushing moves a value in, and `popArray(from:)` moves
/// the top elements out into a new array, so building a container retains nothing twice.
/// Whatever is left is destroyed in `deinit` (a parse that throws halfway).
struct UnsafeStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = Swift.max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always) var isEmpty: Bool { count == 0 }

    @inline(__always) mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    @inline(never) private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The top element; the stack must not be empty.
    @inline(__always) var top: Element {
        get { base[count &- 1] }
        _modify { yield &base[count &- 1] }
    }

    /// Removes and returns the top element; the stack must not be empty.
    @inline(__always) mutating func pop() -> Element {
        count &-= 1
        return (base + count).move()
    }

    /// Moves the elements at `start...` out into an array.
    @inline(__always) mutating func popArray(from start: Int) -> [Element] {
        let n = count &- start
        if n == 0 { return [] }
        let source = base + start
        count = start
        // `reserveCapacity` on an empty array takes a path specialized for `Element`, while
        // `Array(unsafeUninitializedCapacity:)` looks up the storage class's metadata at run time
        // on every call, which costs more than the moves.
        var array: [Element] = []
        array.reserveCapacity(n)
        for k in 0..<n { array.append((source + k).move()) }
        return array
    }
}
