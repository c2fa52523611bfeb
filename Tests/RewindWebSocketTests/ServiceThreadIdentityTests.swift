import Foundation
@testable import RewindWebSocket
import RewindSupport
import Testing
import RewindTestSupport

/// Issue 37: a `pthread_t` names a thread only while it lives. glibc hands an ended thread's
/// value to the next thread it starts, so a service thread that kept its value after returning
/// took that next thread for itself, and `waitUntilFinished` called there stopped the app with
/// "waitUntilFinished called on the client's own service thread".
@Suite("The service thread's identity", .ownThreads)
struct ServiceThreadIdentityTests {
    /// What a plain thread started after a service thread ended saw.
    struct Sighting: Sendable {
        var sameValue: Bool
        var isCurrent: Bool
    }

    /// Starts a service thread that records its `pthread_t` and returns, waits for it to end,
    /// then starts a plain thread that asks `isCurrent`.
    static func sighting() throws -> Sighting {
        let service = ServiceThread()
        let recorded = Mutex<pthread_t?>(nil)
        let started = service.start(name: "rewind-test-svc", body: { recorded.withLock { $0 = pthread_self() } })
        #expect(started)
        #expect(service.join(until: MonotonicClock.deadline(after: 10)))
        let dead = try #require(recorded.withLock { $0 })
        let seen = Condition<Sighting?>(nil)
        let asker = Thread {
            let me = pthread_self()
            let sighting = Sighting(sameValue: pthread_equal(me, dead) != 0, isCurrent: service.isCurrent)
            seen.update(waking: .all) { $0 = sighting }
        }
        asker.start()
        try #require(seen.wait(for: { $0 != nil }, deadline: MonotonicClock.deadline(after: 10)), "the asking thread did not run within 10 s")
        return try #require(seen.withLock { $0 })
    }

    @Test("a thread that gets an ended service thread's pthread_t is not taken for it")
    func endedThreadIsNobody() throws {
        var reused = 0
        for _ in 0..<200 where reused < 5 {
            let sighting = try Self.sighting()
            #expect(!sighting.isCurrent, "a thread started after the service thread ended passed for it (same pthread_t: \(sighting.sameValue))")
            if sighting.sameValue { reused += 1 }
        }
        #if os(Linux)
        // The case that crashed: glibc reuses the freed stack, and with it the value. Without a
        // reuse the loop above would test nothing.
        #expect(reused > 0, "no thread got an ended thread's pthread_t in 200 tries")
        #endif
    }

    @Test("the service thread is current inside its body and nowhere else")
    func currentInsideOnly() throws {
        let service = ServiceThread()
        #expect(!service.isCurrent, "before it starts")
        let inside = Condition<Bool?>(nil)
        let release = Condition(false)
        let started = service.start(name: "rewind-test-svc", body: {
            let current = service.isCurrent
            inside.update(waking: .all) { $0 = current }
            _ = release.wait(for: { $0 }, deadline: MonotonicClock.deadline(after: 10))
        })
        #expect(started)
        let again = service.start(name: "again", body: {})
        #expect(!again, "a second start is refused")
        try #require(inside.wait(for: { $0 != nil }, deadline: MonotonicClock.deadline(after: 10)), "the body did not run within 10 s")
        #expect(inside.withLock { $0 } == true)
        #expect(!service.isCurrent, "the test's thread while the service thread runs")
        release.update(waking: .all) { $0 = true }
        #expect(service.join(until: MonotonicClock.deadline(after: 10)))
        #expect(service.isFinished)
        #expect(!service.isCurrent, "after it ended")
    }
}
