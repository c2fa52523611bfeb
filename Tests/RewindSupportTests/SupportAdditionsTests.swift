import Foundation
import RewindSupport
import Testing

@Suite struct ConditionWakingAsNeededTests {
    @Test("a change that sets waking wakes the waiter") func aChangeThatSetsWakingWakesTheWaiter() {
        let box = Condition(0)
        let producer = Thread {
            box.update { value, waking in
                value = 7
                waking = .one
            }
        }
        producer.start()
        #expect(box.withLock(when: { $0 == 7 }, deadline: MonotonicClock.deadline(after: 10)) { $0 } == 7)
    }

    @Test("a change that leaves waking nil wakes nobody") func aChangeThatLeavesWakingNilWakesNobody() {
        let box = Condition(0)
        // What the waiter saw, and whether it returned at its own deadline or later.
        let woken = Condition<(value: Int, atDeadline: Bool)?>(nil)
        let waiter = Thread {
            // Waits once: only a signal or the deadline ends it.
            let deadline = MonotonicClock.deadline(after: 0.3)
            let sawValue = box.withLock(waitingOnceUntil: deadline) { $0 }
            let returned = MonotonicClock.nanoseconds()
            // (The wait converts the deadline to wall-clock time: allow it a few milliseconds.)
            woken.update { $0 = (sawValue, returned >= deadline - 20_000_000) }
        }
        waiter.start()
        // The waiter is asleep by now (or not yet asleep: it then sleeps its whole 0.3 s).
        usleep(50_000)
        let returned = box.update { value, _ in
            value = 1
            return "kept"
        }
        #expect(returned == "kept")
        let seen = woken.withLock(when: { $0 != nil }, deadline: MonotonicClock.deadline(after: 10)) { $0 } ?? nil
        // Not woken by the change: it slept until its own deadline, measured on its own thread
        // (a loaded machine can hold this thread up for longer than the waiter sleeps).
        #expect(seen?.value == 1)
        #expect(seen?.atDeadline == true, "the waiter returned before its deadline: something woke it")
    }
}

@Suite struct MonotonicClockDurationTests {
    @Test("a deadline after a duration matches the seconds form") func aDeadlineAfterADurationMatchesTheSecondsForm() {
        let fromDuration = MonotonicClock.deadline(after: .milliseconds(1_500))
        let fromSeconds = MonotonicClock.deadline(after: 1.5)
        #expect(abs(fromSeconds - fromDuration) < 100_000_000)
        #expect(fromDuration - MonotonicClock.nanoseconds() > 1_400_000_000)
    }

    @Test("an enormous duration gives the furthest deadline") func anEnormousDurationGivesTheFurthestDeadline() {
        #expect(MonotonicClock.deadline(after: .seconds(Int64.max)) == .max)
        #expect(MonotonicClock.deadline(after: .seconds(-Int64.max)) == .min)
        #expect(MonotonicClock.deadline(after: .zero) <= MonotonicClock.nanoseconds())
    }
}

@Suite struct SplitMix64ChanceTests {
    @Test("is the standard library's uniform draw below the probability") func isTheStandardLibrarysUniformDrawBelowTheProbability() {
        var random = SplitMix64(seed: 11)
        var copy = random
        for probability in [0.1, 0.5, 0.9, 0.25] {
            #expect(random.chance(probability) == (Double.random(in: 0..<1, using: &copy) < probability))
        }
        #expect(random == copy)
    }

    @Test("holds about as often as asked") func holdsAboutAsOftenAsAsked() {
        var random = SplitMix64(seed: 3)
        let hits = (0..<10_000).filter { _ in random.chance(0.3) }.count
        #expect((2_700...3_300).contains(hits))
        #expect(!(0..<1_000).contains { _ in random.chance(0) })
        #expect((0..<1_000).allSatisfy { _ in random.chance(1) })
    }
}
