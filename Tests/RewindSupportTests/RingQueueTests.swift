import RewindSupport
import Testing

@Suite struct RingQueueTests {
    @Test("pops in the order it was given") func popsInTheOrderItWasGiven() {
        var queue = RingQueue<Int>()
        for value in 0..<100 { queue.append(value) }
        var popped: [Int] = []
        while let value = queue.popFirst() { popped.append(value) }
        #expect(popped == Array(0..<100))
        #expect(queue.isEmpty)
        #expect(queue.popFirst() == nil)
    }

    @Test("wraps around without growing when it drains as fast as it fills") func wrapsAroundWithoutGrowingWhenItDrainsAsFastAsItFills() {
        var queue = RingQueue<Int>(minimumCapacity: 4)
        var next = 0
        var expected = 0
        for _ in 0..<1_000 {
            queue.append(next); next += 1
            queue.append(next); next += 1
            #expect(queue.popFirst() == expected); expected += 1
            #expect(queue.popFirst() == expected); expected += 1
        }
        #expect(queue.capacity == 4)
    }

    @Test("grows across the wrap keeping order") func growsAcrossTheWrapKeepingOrder() {
        var queue = RingQueue<Int>(minimumCapacity: 4)
        queue.append(contentsOf: [0, 1, 2])
        queue.popFirst()
        queue.popFirst()
        // The head is at slot 2: these wrap around before the buffer grows.
        queue.append(contentsOf: [3, 4, 5, 6, 7])
        #expect(Array(queue) == [2, 3, 4, 5, 6, 7])
        #expect(queue.capacity >= 6)
    }

    @Test("indices run from the front") func indicesRunFromTheFront() {
        var queue: RingQueue<String> = ["a", "b", "c", "d"]
        queue.popFirst()
        queue.append("e")
        #expect(queue.first == "b")
        #expect(queue.last == "e")
        #expect(queue[2] == "d")
        #expect(queue.firstIndex(of: "d") == 2)
        queue[0] = "B"
        #expect(Array(queue) == ["B", "c", "d", "e"])
    }

    @Test("prepend puts an element back in front") func prependPutsAnElementBackInFront() {
        var queue: RingQueue<Int> = [1, 2]
        queue.prepend(0)
        #expect(Array(queue) == [0, 1, 2])
        var empty = RingQueue<Int>()
        empty.prepend(9)
        #expect(Array(empty) == [9])
    }

    @Test("remove first while stops at the first that does not match") func removeFirstWhileStopsAtTheFirstThatDoesNotMatch() {
        var queue: RingQueue<Int> = [1, 2, 3, 10, 4]
        #expect(queue.removeFirst(while: { $0 < 5 }) == 3)
        #expect(Array(queue) == [10, 4])
        queue.removeFirst(1)
        #expect(Array(queue) == [4])
    }

    @Test("remove all keeping capacity reuses the buffer") func removeAllKeepingCapacityReusesTheBuffer() {
        var queue: RingQueue<Int> = [1, 2, 3]
        let capacity = queue.capacity
        queue.removeAll(keepingCapacity: true)
        #expect(queue.isEmpty)
        #expect(queue.capacity == capacity)
        queue.append(7)
        #expect(Array(queue) == [7])
        queue.removeAll()
        #expect(queue.capacity == 0)
    }

    @Test("matches an array under a random mix of operations") func matchesAnArrayUnderARandomMixOfOperations() {
        var random = SplitMix64(seed: 29)
        var queue = RingQueue<UInt64>(minimumCapacity: 3)
        var model: [UInt64] = []
        for _ in 0..<20_000 {
            switch random.next() % 5 {
            case 0, 1:
                let value = random.next()
                queue.append(value); model.append(value)
            case 2:
                #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            case 3:
                let value = random.next()
                queue.prepend(value); model.insert(value, at: 0)
            default:
                let limit = random.next()
                let removed = queue.removeFirst(while: { $0 < limit })
                let modelRemoved = model.prefix(while: { $0 < limit }).count
                model.removeFirst(modelRemoved)
                #expect(removed == modelRemoved)
            }
            if queue.count != model.count || !queue.elementsEqual(model) {
                Issue.record("the queue holds \(Array(queue)), where an array holds \(model)")
                return
            }
        }
    }
}
