import Foundation
import RewindSupport
import Testing

@Suite struct MutexTests {
    @Test("counts every increment from many threads") func countsEveryIncrementFromManyThreads() {
        let counter = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("returns what the body returns and rethrows") func returnsWhatTheBodyReturnsAndRethrows() {
        struct Refused: Error {}
        let names = Mutex(["a"])
        #expect(names.withLock { $0.append("b"); return $0.count } == 2)
        #expect(throws: Refused.self) { try names.withLock { _ in throw Refused() } }
        #expect(names.withLock { $0 } == ["a", "b"])
    }
}

@Suite struct ConditionTests {
    @Test("a waiter wakes when another thread makes the predicate true") func aWaiterWakesWhenAnotherThreadMakesThePredicateTrue() {
        let box = Condition(0)
        let producer = Thread { box.update { $0 = 42 } }
        producer.start()
        let value = box.withLock(when: { $0 != 0 }, deadline: MonotonicClock.deadline(after: 10)) { $0 }
        #expect(value == 42)
    }

    @Test("a wait gives up at its deadline") func aWaitGivesUpAtItsDeadline() {
        let box = Condition(false)
        let start = MonotonicClock.nanoseconds()
        #expect(box.wait(for: { $0 }, deadline: start + 50_000_000) == false)
        #expect(MonotonicClock.nanoseconds() - start >= 50_000_000)
        #expect(box.withLock(when: { $0 }, deadline: start) { _ in 1 } == nil)
    }

    @Test("a satisfied predicate does not wait") func aSatisfiedPredicateDoesNotWait() {
        let box = Condition(5)
        #expect(box.wait(for: { $0 == 5 }, deadline: MonotonicClock.nanoseconds()))
    }

    @Test("a queue drained by consumers loses nothing") func aQueueDrainedByConsumersLosesNothing() {
        let queue = Condition(RingQueue<Int>())
        let taken = Mutex([Int]())
        let done = Condition(0)
        for _ in 0..<2 {
            Thread {
                while true {
                    let item = queue.withLock(when: { !$0.isEmpty }) { $0.popFirst()! }!
                    if item < 0 { break }
                    taken.withLock { $0.append(item) }
                }
                done.update { $0 += 1 }
            }.start()
        }
        for item in 0..<5_000 { queue.update(waking: .one) { $0.append(item) } }
        queue.update { $0.append(contentsOf: [-1, -1]) }
        #expect(done.wait(for: { $0 == 2 }, deadline: MonotonicClock.deadline(after: 30)))
        #expect(taken.withLock { $0.sorted() } == Array(0..<5_000))
    }
}

@Suite struct MonotonicClockTests {
    @Test("never goes back and agrees with seconds") func neverGoesBackAndAgreesWithSeconds() {
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= last)
            last = now
        }
        let seconds = MonotonicClock.seconds()
        #expect(abs(seconds - Double(MonotonicClock.nanoseconds()) / 1e9) < 1)
        #expect(MonotonicClock.deadline(after: 2) - MonotonicClock.nanoseconds() > 1_900_000_000)
    }
}
