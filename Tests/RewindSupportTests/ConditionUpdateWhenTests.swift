import Foundation
import RewindSupport
import Testing

@Suite struct ConditionUpdateWhenTests {
    @Test("waits for the predicate then changes and wakes") func waitsForThePredicateThenChangesAndWakes() {
        // Tickets served in order: each waiter's change is what the next one waits for, so a
        // change that woke nobody would leave the rest waiting until their deadline.
        struct Line { var serving = 0; var served: [Int] = [] }
        let line = Condition(Line())
        let done = Condition(0)
        for ticket in (0..<6).reversed() {
            Thread {
                let taken = line.update(when: { $0.serving == ticket }, deadline: MonotonicClock.deadline(after: 20)) { line in
                    line.served.append(ticket)
                    line.serving += 1
                    return true
                }
                done.update { $0 += taken == nil ? 100 : 1 }
            }.start()
        }
        #expect(done.wait(for: { $0 >= 6 }, deadline: MonotonicClock.deadline(after: 30)))
        #expect(done.withLock { $0 } == 6)
        #expect(line.withLock { $0.served } == Array(0..<6))
    }

    @Test("gives up at its deadline without running the body") func givesUpAtItsDeadlineWithoutRunningTheBody() {
        let box = Condition(0)
        let ran = box.update(when: { $0 == 1 }, deadline: MonotonicClock.nanoseconds() + 20_000_000) { value -> Bool in
            value = 99
            return true
        }
        #expect(ran == nil)
        #expect(box.withLock { $0 } == 0)
    }
}
